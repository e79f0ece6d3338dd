package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/agentscmd"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/cli/contextcmd"
	"github.com/agentlineage/lineage/internal/cli/handoffcmd"
	"github.com/agentlineage/lineage/internal/cli/hookcmd"
	"github.com/agentlineage/lineage/internal/cli/instructionscmd"
	"github.com/agentlineage/lineage/internal/cli/mcpcmd"
	"github.com/agentlineage/lineage/internal/cli/memorycmd"
	"github.com/agentlineage/lineage/internal/cli/servecmd"
	"github.com/agentlineage/lineage/internal/cli/sessionscmd"
	"github.com/agentlineage/lineage/internal/cli/skillscmd"
	"github.com/agentlineage/lineage/internal/cli/tractcmd"
)

// Env is the environment a command runs in (see [clienv.Env]), named here
// for callers of [Run] and [NewRootCmd].
type Env = clienv.Env

// Version is set at link time (-ldflags "-X .../internal/cli.Version=v1.2.3");
// otherwise the module version from the build info is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// Main runs lineage with the process's arguments and environment and returns
// the exit code. SIGINT and SIGTERM cancel the command's context; a command
// that stops because of it exits 130 or 143 (see SignalExitCode).
func Main() int {
	env := clienv.ProcessEnv()
	env.Serving = collectLate()
	env.Exits = true
	ctx, received, stop := clienv.SignalContext(context.Background(), clienv.ArmSignalsAfter)
	defer stop()
	return clienv.SignalExitCode(Run(ctx, os.Args[1:], env), received(), env.Stderr)
}

// Run executes one lineage command line and returns its exit code. Errors are
// printed to env.Stderr as "lineage: <message>".
func Run(ctx context.Context, args []string, env *clienv.Env) (code int) {
	if env.Version == "" {
		env.Version = version()
	}
	// A harness runs the hook: exit 2 would block its agent, and a Go
	// panic exits 2. Neither may happen there.
	hook := hookRun(args)
	if hook {
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(env.Stderr, "lineage: hook: internal error: %v\n", r)
				code = clienv.ExitFailure
			}
		}()
	}
	root := NewRootCmd(env, append([]string{}, args...)...)
	root.SetArgs(args)
	var cmd *cobra.Command
	var err error
	if !hook {
		// The hook group takes harness names as its argument.
		cmd, err = unknownSubcommand(root, args)
	}
	if err == nil {
		cmd, err = root.ExecuteContextC(ctx)
	}
	if err == nil {
		return clienv.ExitOK
	}
	code = exitCode(err)
	if hook && code == clienv.ExitUsage {
		code = clienv.ExitFailure
	}
	var ee *clienv.ExitError
	if !(errors.As(err, &ee) && ee.Silent) {
		fmt.Fprintf(env.Stderr, "lineage: %s\n", err)
	}
	if code == clienv.ExitUsage {
		path := "lineage"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(env.Stderr, "Run '%s --help' for usage.\n", path)
	}
	return code
}

func exitCode(err error) int {
	var ee *clienv.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	// cobra reports these without a type of their own.
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.HasPrefix(msg, p) {
			return clienv.ExitUsage
		}
	}
	return clienv.ExitFailure
}

// groups are lineage's top-level commands. Building a group's subtree (a
// few hundred flags in all) is most of the CLI's own start-up cost, so
// [NewRootCmd] builds in full only the group a command line names and
// stands in a stub carrying the name and one-line help for each other one:
// `lineage --help`, `lineage help` and completion of the group names read
// only those.
var groups = []struct {
	name, short string
	build       func(*clienv.Env) *cobra.Command
}{
	{"instructions", instructionscmd.Short, instructionscmd.NewCmd},
	{"agents", agentscmd.Short, agentscmd.NewCmd},
	{"tract", tractcmd.Short, tractcmd.NewCmd},
	{"context", contextcmd.Short, contextcmd.NewCmd},
	{"mcp", mcpcmd.Short, mcpcmd.NewCmd},
	{"hook", hookcmd.Short, hookcmd.NewCmd},
	{"skills", skillscmd.Short, skillscmd.NewCmd},
	{"serve", servecmd.Short, servecmd.NewCmd},
	{"sessions", sessionscmd.Short, sessionscmd.NewCmd},
	{"handoff", handoffcmd.Short, handoffcmd.NewCmd},
	{"memory", memorycmd.Short, memorycmd.NewCmd},
}

// NewRootCmd builds the command tree for args around env: the group args
// names (see [invokedGroup]) in full, the other groups as stubs. A nil
// args builds every group in full.
func NewRootCmd(env *clienv.Env, args ...string) *cobra.Command {
	root := &cobra.Command{
		Use:   "lineage",
		Short: "Instructions, agent triads and version-controlled LLM context",
		Long: `lineage tells coding agents what context applies and keeps that context under
version control:

  instructions  hierarchical AGENTS.md loading and a resolver for new scopes
  agents        CLIA triads: discovery, deterministic merge, journal writes
  tract         git for an LLM's context window: commits, branches, compile
  context       one model request: instructions, agent profile and history
  skills        Agent Skills (SKILL.md): catalog, search, load, lint
  mcp           all of the above as an MCP server
  serve         a read-only web page of a tract store and the instructions here`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate("lineage {{.Version}}\n")
	root.SetFlagErrorFunc(clienv.FlagError)
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print lineage's version (as --version does)",
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(env.Stdout, "lineage %s\n", root.Version)
			return err
		},
	})
	want, all := invokedGroup(args)
	for _, g := range groups {
		if all || g.name == want {
			root.AddCommand(g.build(env))
			continue
		}
		root.AddCommand(&cobra.Command{Use: g.name, Short: g.short, Args: cobra.ArbitraryArgs, DisableFlagParsing: true,
			RunE: func(*cobra.Command, []string) error {
				return fmt.Errorf("internal error: group %s was not built", g.name)
			}})
	}
	return root
}

// invokedGroup is the group a command line runs: its first word that is
// not a flag, also after cobra's "help" and completion commands
// ("lineage help tract commit", "lineage __complete tract co"). all is
// true for a nil args (build everything).
func invokedGroup(args []string) (name string, all bool) {
	if args == nil {
		return "", true
	}
	first := ""
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"), a == "help", a == cobra.ShellCompRequestCmd, a == cobra.ShellCompNoDescRequestCmd:
			continue
		}
		// A group's flag put before the group ("lineage --store X tract
		// log") leaves its value first: the group is the first word
		// naming one.
		for _, g := range groups {
			if g.name == a {
				return a, false
			}
		}
		if first == "" {
			first = a
		}
	}
	return first, false
}

// unknownSubcommand catches a misspelt subcommand of a group before cobra
// parses the flags meant for it ("tract comit --text hi" would otherwise
// blame --text): a usage error naming the word, with cobra's suggestions.
// It returns the group, for the usage hint.
func unknownSubcommand(root *cobra.Command, args []string) (*cobra.Command, error) {
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Annotations[clienv.GroupAnnotation] == "" {
		return nil, nil
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if strings.HasPrefix(a, "-") {
			// A persistent flag of the group with its value apart.
			if f := cmd.Flags().Lookup(strings.TrimLeft(a, "-")); f != nil && !strings.Contains(a, "=") && f.NoOptDefVal == "" {
				i++
			}
			continue
		}
		if a == "help" {
			return nil, nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", a, cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2
		}
		if sugg := cmd.SuggestionsFor(a); len(sugg) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sugg, ", "))
		}
		return cmd, &clienv.ExitError{Code: clienv.ExitUsage, Err: errors.New(msg)}
	}
	return nil, nil
}

// hookRun reports whether args run the hook group other than its install
// and uninstall commands (which people run, with the usual exit codes).
func hookRun(args []string) bool {
	if g, _ := invokedGroup(args); g != "hook" {
		return false
	}
	seen := false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-"):
		case !seen && a == "hook":
			seen = true
		case seen:
			return a != "install" && a != "uninstall"
		}
	}
	return true
}

// rootArgs refuses a word that names no command, suggesting the commands
// it is close to (lineage trakt: tract; lineage skill: skills).
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if sugg := cmd.SuggestionsFor(args[0]); len(sugg) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sugg, ", "))
	}
	return &clienv.ExitError{Code: clienv.ExitUsage, Err: errors.New(msg)}
}
