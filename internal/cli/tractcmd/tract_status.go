package tractcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

func newTractStatusCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Tract, branch, head, tokens against the stored budget, unmerged children, branches ahead/behind",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			st, err := s.Repo.Status(cmd.Context(), s.Tract)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, st)
			}
			branch := st.Branch
			if branch == "" {
				branch = "(detached)"
			}
			head := "(no commits)"
			if st.Head != "" {
				head = st.Head.Short()
			}
			fmt.Fprintf(env.Stdout, "tract %s, branch %s at %s\n", fsx.LineSafe(st.Tract), fsx.LineSafe(branch), head)
			switch {
			case st.Budget == nil:
				fmt.Fprintf(env.Stdout, "tokens: %d (no budget)\n", st.Tokens)
			case st.Over:
				fmt.Fprintf(env.Stdout, "tokens: %d of %d: over by %d (see 'lineage tract compress --plan')\n", st.Tokens, *st.Budget, st.Tokens-*st.Budget)
			default:
				fmt.Fprintf(env.Stdout, "tokens: %d of %d (%.0f%%)\n", st.Tokens, *st.Budget, *st.Pressure*100)
			}
			if st.Warn {
				fmt.Fprintf(env.Stdout, "pressure: %.0f%%, at or above warn-at %g", *st.Pressure*100, st.WarnAt)
				if st.Plan != nil {
					fmt.Fprintf(env.Stdout, ": compress %s frees %d tokens of %d messages (summary of at most %d tokens)\n", st.Plan.Range, st.Plan.Tokens, st.Plan.Messages, st.Plan.MaxSummaryTokens)
				} else {
					fmt.Fprintln(env.Stdout, ": nothing but pinned messages to compress")
				}
			}
			for _, c := range st.Children {
				commits := "commits"
				if c.Unmerged == 1 {
					commits = "commit"
				}
				fmt.Fprintf(env.Stdout, "child %s [%s]: %d %s not merged back (at %s): %s\n", fsx.LineSafe(c.Name), c.Mode, c.Unmerged, commits, c.Head.Short(), fsx.LineSafe(c.Purpose))
			}
			for _, b := range st.Branches {
				fmt.Fprintf(env.Stdout, "branch %s: %d ahead, %d behind\n", fsx.LineSafe(b.Name), b.Ahead, b.Behind)
			}
			return nil
		}),
	}
	asJSON.Add(cmd, "")
	return cmd
}

func newTractConfigCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "config [budget [N|none] | warn-at [RATIO|none] | prune [POLICY|none]]",
		Short: "Show or set the tract's settings (budget: the tokens status measures against; warn-at: the share of it a commit warns at; prune: the policy compiles apply)",
		Args:  clienv.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && !tractKnownKey(args[0]) {
				return clienv.UsageError("unknown setting %q (want one of %s)", args[0], strings.Join(tract.ConfigKeys, ", "))
			}
			body := func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
				var cfg tract.Config
				var err error
				if len(args) == 2 {
					cfg, err = s.Repo.SetConfig(cmd.Context(), s.Tract, args[0], args[1])
				} else {
					cfg, err = s.Repo.Config(cmd.Context(), s.Tract)
				}
				if err != nil {
					return clienv.TractErr(err)
				}
				if asJSON.Set {
					return clienv.WriteJSON(env.Stdout, cfg)
				}
				budget := "none"
				if cfg.Budget > 0 {
					budget = fmt.Sprint(cfg.Budget)
				}
				fmt.Fprintf(env.Stdout, "budget %s\nwarn-at %g\n", budget, cfg.WarnAt)
				if cfg.Prune != "" {
					fmt.Fprintf(env.Stdout, "prune %s\n", cfg.Prune)
				}
				return nil
			}
			if len(args) == 2 {
				return f.WithSession(env, body)(cmd, args)
			}
			return f.WithReadSession(env, body)(cmd, args)
		},
	}
	asJSON.Add(cmd, "")
	return cmd
}

func tractKnownKey(k string) bool {
	for _, c := range tract.ConfigKeys {
		if c == k {
			return true
		}
	}
	return false
}
