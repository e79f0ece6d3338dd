package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractCompressCmd(env *Env, f *tractFlags) *cobra.Command {
	var (
		o          tract.CompressOptions
		summary    string
		file       string
		plan       bool
		planBudget int
		asJSON     jsonFlag
	)
	cmd := &cobra.Command{
		Use:   "compress FROM..TO (--summary TEXT | --file F) [--dry-run] | compress --plan [--budget N]",
		Short: "Replace a range of the history with a summary, by reference (or plan one)",
		Long: `compress records a summary commit that stands in for the range FROM..TO of the
current branch's first-parent history (both ends included) when compiling:
the summary renders at TO's place, PINNED messages of the range stay, and
the originals stay in the DAG (gc keeps them, blame maps the summary to
them). Annotating the summary skip brings the originals back. lineage never
writes the summary itself: the caller does.

compress --plan names the oldest range whose summary would bring the context
under --budget N (default: the budget stored with 'tract config budget N')
and prints its messages, for the caller to summarize.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if plan {
				if len(args) > 0 || summary != "" || file != "" {
					return usageError("--plan takes no range and no summary")
				}
				return f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
					p, err := s.repo.PlanCompress(cmd.Context(), s.tract, tract.PlanOptions{Budget: planBudget, Encoding: o.Encoding})
					if errors.Is(err, tract.ErrNoBudget) {
						return usageError("%v", err)
					}
					if err != nil {
						return tractErr(err)
					}
					if asJSON.set {
						return writeJSON(env.Stdout, p)
					}
					return printPlan(env, p)
				}, tract.PlanOptions{Budget: planBudget})(cmd, nil)
			}
			if len(args) != 1 {
				return usageError("give one range FROM..TO (or --plan)")
			}
			if cmd.Flags().Changed("budget") {
				return usageError("--budget goes with --plan")
			}
			if _, _, err := tract.ParseRange(args[0]); err != nil {
				return usageError("%v", err)
			}
			text, err := tractReadInput(env, summary, cmd.Flags().Changed("summary"), file, false)
			if err != nil {
				return err
			}
			o.Range, o.Summary = args[0], text
			return f.withSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
				res, err := s.repo.Compress(cmd.Context(), s.tract, o)
				if err != nil {
					return tractErr(err)
				}
				if asJSON.set {
					return writeJSON(env.Stdout, res)
				}
				what := fmt.Sprintf("%d messages (%s..%s)", len(res.Replaced), res.From.Short(), res.To.Short())
				if len(res.Kept) > 0 {
					what += fmt.Sprintf(", %d pinned kept", len(res.Kept))
				}
				if res.DryRun {
					fmt.Fprintf(env.Stdout, "dry run: a summary would replace %s: %d → %d tokens\n", what, res.TokensBefore, res.TokensAfter)
					return nil
				}
				fmt.Fprintf(env.Stdout, "compressed %s into %s: %d → %d tokens\n", what, res.Commit.Short(), res.TokensBefore, res.TokensAfter)
				return nil
			}, o)(cmd, nil)
		},
	}
	cmd.Flags().StringVar(&summary, "summary", "", "the summary text")
	cmd.Flags().StringVar(&file, "file", "", "read the summary from a file (- for stdin)")
	cmd.Flags().StringVar(&o.Role, "role", "", "the summary's role: user (default) or assistant")
	cmd.Flags().StringVar(&o.Message, "message", "", "commit message (default: compress FROM..TO)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print the tokens before and after; store nothing")
	cmd.Flags().BoolVar(&plan, "plan", false, "name the oldest range to compress to fit the budget, with its messages")
	cmd.Flags().IntVar(&planBudget, "budget", 0, "with --plan: the budget to fit (default: the stored one)")
	cmd.Flags().StringVar(&o.Encoding, "encoding", "", "token encoding (o200k_base or cl100k_base)")
	asJSON.add(cmd, "")
	return cmd
}

func printPlan(env *Env, p tract.CompressPlan) error {
	if len(p.Ranges) == 0 {
		if p.Fits {
			fmt.Fprintf(env.Stdout, "%d tokens fit the budget of %d: nothing to compress\n", p.Tokens, p.Budget)
			return nil
		}
		return fmt.Errorf("%d tokens over the budget of %d, and nothing but pinned messages to compress", p.Tokens, p.Budget)
	}
	for _, r := range p.Ranges {
		fmt.Fprintf(env.Stdout, "compress %s: %d messages, %d tokens; the summary may use %d tokens (context %d, budget %d)\n",
			r.Range, len(r.Messages), r.Tokens, r.MaxSummaryTokens, p.Tokens, p.Budget)
		fmt.Fprint(env.Stdout, tract.Text(r.Messages))
	}
	if !p.Fits {
		return fmt.Errorf("even compressing everything but pinned messages leaves the context over the budget of %d", p.Budget)
	}
	return nil
}

func newTractDiffCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	var encoding string
	cmd := &cobra.Command{
		Use:   "diff A [B]",
		Short: "What changed between the compiled contexts at two refs (B defaults to HEAD)",
		Long: `diff compiles the tract at A and at B (default HEAD) and lists, in B's order,
the messages added (+), removed (-), edited (~, old then new text) and
re-prioritised (!).`,
		Args: rangeArgs(1, 2),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			b := tract.HeadRef
			if len(args) == 2 {
				b = args[1]
			}
			d, err := s.repo.Diff(cmd.Context(), s.tract, args[0], b, encoding)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, d)
			}
			fmt.Fprintf(env.Stdout, "--- %s (%s): %d messages, %d tokens\n", fsx.LineSafe(d.From.Ref), d.From.Head.Short(), d.From.Messages, d.From.Tokens)
			fmt.Fprintf(env.Stdout, "+++ %s (%s): %d messages, %d tokens\n", fsx.LineSafe(d.To.Ref), d.To.Head.Short(), d.To.Messages, d.To.Tokens)
			for _, c := range d.Changes {
				line := func(mark, text string) {
					fmt.Fprintf(env.Stdout, "%s%s %s: %s\n", mark, c.Commit.Short(), c.Role, oneLine(text))
				}
				switch c.Kind {
				case "added":
					line("+", c.After)
				case "removed":
					line("-", c.Before)
				case "edited":
					line("~", c.Before)
					line("~", c.After)
				case "reprioritized":
					fmt.Fprintf(env.Stdout, "!%s %s: %s → %s\n", c.Commit.Short(), c.Role, c.PriorityBefore, c.PriorityAfter)
				}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&encoding, "encoding", "", "token encoding (o200k_base or cl100k_base)")
	asJSON.add(cmd, "")
	return cmd
}

// oneLine keeps a message on one line of a diff.
func oneLine(s string) string {
	return fsx.LineSafe(strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ "))
}

func newTractStatusCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Tract, branch, head, tokens against the stored budget, unmerged children, branches ahead/behind",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			st, err := s.repo.Status(cmd.Context(), s.tract)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, st)
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
				fmt.Fprintf(env.Stdout, "child %s [%s] not merged back (at %s): %s\n", fsx.LineSafe(c.Name), c.Mode, c.Head.Short(), fsx.LineSafe(c.Purpose))
			}
			for _, b := range st.Branches {
				fmt.Fprintf(env.Stdout, "branch %s: %d ahead, %d behind\n", fsx.LineSafe(b.Name), b.Ahead, b.Behind)
			}
			return nil
		}),
	}
	asJSON.add(cmd, "")
	return cmd
}

func newTractConfigCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "config [budget [N|none] | warn-at [RATIO|none]]",
		Short: "Show or set the tract's settings (budget: the tokens status measures against; warn-at: the share of it a commit warns at)",
		Args:  rangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && !tractKnownKey(args[0]) {
				return usageError("unknown setting %q (want one of %s)", args[0], strings.Join(tract.ConfigKeys, ", "))
			}
			body := func(cmd *cobra.Command, _ []string, s *tractSession) error {
				var cfg tract.Config
				var err error
				if len(args) == 2 {
					cfg, err = s.repo.SetConfig(cmd.Context(), s.tract, args[0], args[1])
				} else {
					cfg, err = s.repo.Config(cmd.Context(), s.tract)
				}
				if err != nil {
					return tractErr(err)
				}
				if asJSON.set {
					return writeJSON(env.Stdout, cfg)
				}
				budget := "none"
				if cfg.Budget > 0 {
					budget = fmt.Sprint(cfg.Budget)
				}
				fmt.Fprintf(env.Stdout, "budget %s\nwarn-at %g\n", budget, cfg.WarnAt)
				return nil
			}
			if len(args) == 2 {
				return f.withSession(env, body)(cmd, args)
			}
			return f.withReadSession(env, body)(cmd, args)
		},
	}
	asJSON.add(cmd, "")
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
