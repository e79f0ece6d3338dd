package tractcmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractCompressCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var (
		o          tract.CompressOptions
		summary    string
		file       string
		plan       bool
		planBudget int
		asJSON     clienv.JSONFlag
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
					return clienv.UsageError("--plan takes no range and no summary")
				}
				return runCompressPlan(cmd, env, f, tract.PlanOptions{Budget: planBudget, Encoding: o.Encoding}, asJSON.Set)
			}
			if len(args) != 1 {
				return clienv.UsageError("give one range FROM..TO (or --plan)")
			}
			if cmd.Flags().Changed("budget") {
				return clienv.UsageError("--budget goes with --plan")
			}
			if _, _, err := tract.ParseRange(args[0]); err != nil {
				return clienv.UsageError("%v", err)
			}
			text, err := tractReadInput(env, summary, cmd.Flags().Changed("summary"), file, false)
			if err != nil {
				return err
			}
			o.Range, o.Summary = args[0], text
			return f.WithSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
				res, err := s.Repo.Compress(cmd.Context(), s.Tract, o)
				if err != nil {
					return clienv.TractErr(err)
				}
				if asJSON.Set {
					return clienv.WriteJSON(env.Stdout, res)
				}
				printCompressed(env.Stdout, res)
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
	asJSON.Add(cmd, "")
	return cmd
}

// runCompressPlan is compress --plan: the range to summarize to fit the
// budget, with its messages. The budget is validated as the options are
// (given 0, the stored one).
func runCompressPlan(cmd *cobra.Command, env *clienv.Env, f *clienv.TractFlags, po tract.PlanOptions, asJSON bool) error {
	return f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
		p, err := s.Repo.PlanCompress(cmd.Context(), s.Tract, po)
		if errors.Is(err, tract.ErrNoBudget) {
			return clienv.UsageError("%v", err)
		}
		if err != nil {
			return clienv.TractErr(err)
		}
		if asJSON {
			return clienv.WriteJSON(env.Stdout, p)
		}
		return printPlan(env, p)
	}, tract.PlanOptions{Budget: po.Budget})(cmd, nil)
}

// printCompressed says what a compress replaced, or would (--dry-run).
func printCompressed(w io.Writer, res tract.CompressResult) {
	what := fmt.Sprintf("%d messages (%s..%s)", len(res.Replaced), res.From.Short(), res.To.Short())
	if len(res.Kept) > 0 {
		what += fmt.Sprintf(", %d pinned kept", len(res.Kept))
	}
	if res.DryRun {
		fmt.Fprintf(w, "dry run: a summary would replace %s: %d → %d tokens\n", what, res.TokensBefore, res.TokensAfter)
		return
	}
	fmt.Fprintf(w, "compressed %s into %s: %d → %d tokens\n", what, res.Commit.Short(), res.TokensBefore, res.TokensAfter)
}

func printPlan(env *clienv.Env, p tract.CompressPlan) error {
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
