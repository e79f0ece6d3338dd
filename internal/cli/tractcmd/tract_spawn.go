package tractcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

func newTractSpawnCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var o tract.SpawnOptions
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "spawn CHILD --purpose P [--mode reference|snapshot|empty] [--budget N]",
		Short: "Create a child tract from the current tract's head",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			child, err := s.Repo.Spawn(cmd.Context(), s.Tract, args[0], o)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, child)
			}
			at := "an empty tract"
			if child.Spawn.Commit != "" {
				at = child.Spawn.Commit.Short()
			}
			fmt.Fprintf(env.Stdout, "spawned %s from %s at %s (%s)\n", child.Name, s.Tract, at, child.Spawn.Mode)
			return nil
		}, &o),
	}
	cmd.Flags().StringVar(&o.Purpose, "purpose", "", "what the child is for (required)")
	cmd.Flags().StringVar((*string)(&o.Mode), "mode", string(tract.SpawnReference), "reference (see the parent's context by reference), snapshot (a seed with the compiled parent context) or empty (a seed with the purpose)")
	clienv.BudgetFlag(cmd, &o.Budget, "token budget of a snapshot")
	asJSON.Add(cmd, "print the child tract as JSON")
	return cmd
}

func newTractMergeFromCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var (
		o      tract.MergeFromOptions
		types  []string
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "merge-from CHILD [--into PARENT] [--range FROM..TO] [--type T]… [--role R]… [--tag NAME]… [--allow-empty] [--dry-run]",
		Short: "Merge a child's work into its parent by reference (a merge commit, nothing copied)",
		Long: `Merge a child's work into its parent by reference: a merge commit whose second
parent is the child's head, nothing copied. By default it takes everything the child
did after its spawn point that the parent has not merged yet; --range FROM..TO (the
child's first-parent commits, both included) and the repeatable --type, --role and
--tag narrow that (the merge records its selection in its metadata). A selection
never gives up what it leaves out: a later merge-from offers it again. A selection
that takes nothing is refused (exit 2) unless --allow-empty. --dry-run lists the
messages the merge would add, with tokens, and stores nothing.`,
		Args: clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			res, err := s.Repo.MergeFromWith(cmd.Context(), args[0], o)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				if !res.DryRun && res.Kind != tract.MergeUpToDate {
					warnAfter(cmd, env, s, res.Parent)
				}
				return clienv.WriteJSON(env.Stdout, res)
			}
			if res.Kind == tract.MergeUpToDate {
				fmt.Fprintf(env.Stdout, "%s is up to date with %s\n", res.Parent, res.Child)
				return nil
			}
			if res.DryRun {
				sum := 0
				for _, m := range res.Messages {
					fmt.Fprintf(env.Stdout, "%s %-9s %4d %s\n", m.Commit.Short(), m.Role, m.Tokens, fsx.LineSafe(firstLine(m.Content)))
					sum += m.Tokens
				}
				fmt.Fprintf(env.Stdout, "dry run: merging %s into %s would add %d messages (%d tokens): %d → %d tokens\n",
					res.Child, res.Parent, len(res.Messages), sum, res.TokensBefore, res.TokensAfter)
				return nil
			}
			fmt.Fprintf(env.Stdout, "merged %s into %s: %s\n", res.Child, res.Parent, res.Merge.Short())
			warnAfter(cmd, env, s, res.Parent)
			return nil
		}, clienv.Check(func() error {
			o.Types = nil
			for _, t := range types {
				o.Types = append(o.Types, tract.Type(t))
			}
			return o.Validate()
		})),
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Into, "into", "", "parent tract (default: the child's spawn parent)")
	fl.StringVar(&o.Range, "range", "", "take only FROM..TO of the child's first-parent history (both included)")
	fl.StringArrayVar(&types, "type", nil, "take only commits of this type (repeatable)")
	fl.StringArrayVar(&o.Roles, "role", nil, "take only commits of this role (repeatable)")
	fl.StringArrayVar(&o.Tags, "tag", nil, "take only the commit this tag of the child names (repeatable)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "list what would be merged, with tokens; store nothing")
	fl.BoolVar(&o.AllowEmpty, "allow-empty", false, "record the merge even when the selection takes nothing")
	fl.StringVar(&o.Encoding, "encoding", "", "token encoding of a dry run: o200k_base (default) or cl100k_base")
	asJSON.Add(cmd, "")
	return cmd
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
