package clienv

import (
	"github.com/spf13/cobra"
)

// NoArgs rejects positional arguments as a usage error; a group command
// without a subcommand prints its help.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return UsageError("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return nil
}

// ExactArgs, RangeArgs and MinArgs are cobra's validators with usage exit codes.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return UsageError("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

func RangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return UsageError("%s takes %d to %d arguments, got %d", cmd.CommandPath(), lo, hi, len(args))
		}
		return nil
	}
}

func MinArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return UsageError("%s takes at least %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// GroupCmd is a command that only holds subcommands: run without one, it
// prints its help.
// GroupAnnotation marks a group command (see GroupCmd): its only
// arguments are its subcommands.
const GroupAnnotation = "lineage-group"

func GroupCmd(use, short, long string) *cobra.Command {
	return &cobra.Command{
		Use:         use,
		Short:       short,
		Long:        long,
		Args:        NoArgs,
		Annotations: map[string]string{GroupAnnotation: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
}

// SlugArg lets a command that takes --slug S take the slug as its one
// argument too (lineage agents profile coder): an argument is the slug
// when --slug is not given or says the same; anything else is a usage
// error.
func SlugArg(slug *string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return nil
		case len(args) > 1:
			return UsageError("%s takes one slug, got %d arguments", cmd.CommandPath(), len(args))
		case *slug != "" && *slug != args[0]:
			return UsageError("--slug %q and the argument %q name different agents", *slug, args[0])
		}
		*slug = args[0]
		return nil
	}
}
