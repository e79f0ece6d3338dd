package tractcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/spf13/cobra"
)

func newTractCompileCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var (
		o      tract.CompileOptions
		format string
		asJSON clienv.JSONFlag
		pf     clienv.PruneFlags
	)
	cmd := &cobra.Command{
		Use:   "compile [--budget N] [--format openai|openai-request|anthropic|text] [--at REF] [--encoding E] [--prune POLICY] [--drop-failed-turns]",
		Short: "Compile the context an LLM receives",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			form := wire.Format(format)
			if asJSON.Set {
				form = wire.FormatJSON
			}
			// Only --json prints token figures: the other formats do not
			// load the tokenizer just to count a message committed by a
			// process that never loaded it (a budget counts anyway).
			o.Uncounted = form != wire.FormatJSON
			var err error
			if o.Prune, err = pf.Resolve(cmd.Context(), s.Repo, s.Tract); err != nil {
				return err
			}
			if form == wire.FormatOpenAI && o.Budget == 0 && o.Prune == nil {
				// Nothing dropped to report: written as it is read.
				err := s.Repo.CompileMessages(cmd.Context(), s.Tract, o, func(ms *tract.Messages) error {
					return wire.WriteOpenAIMessages(env.Stdout, ms, clienv.JSONIndent)
				})
				if errors.Is(err, wire.ErrEmptyContext) {
					return clienv.FindingError(err)
				}
				return clienv.TractErr(err)
			}
			// One compile per process: a cached view would only hold the
			// whole history in memory while the result is printed.
			res, err := s.Repo.CompileCold(cmd.Context(), s.Tract, o)
			if err != nil {
				return clienv.TractErr(err)
			}
			return printCompile(env, res, form, o.Budget, asJSON.Set)
		}, clienv.Check(func() error {
			if err := pf.Check(); err != nil {
				return err
			}
			return wire.Format(format).Validate()
		}), &o),
	}
	fl := cmd.Flags()
	clienv.BudgetFlag(cmd, &o.Budget, "most tokens the context may use (drops NORMAL, then IMPORTANT, oldest first)")
	fl.StringVar(&format, "format", string(wire.FormatOpenAI), "openai (messages), openai-request (messages and tools), anthropic (system, messages, tools) or text (json: as --json)")
	fl.StringVar(&o.At, "at", "", "compile as of this ref")
	fl.StringVar(&o.Encoding, "encoding", "", "token encoding: o200k_base (default) or cl100k_base")
	pf.Add(cmd)
	asJSON.Add(cmd, "print the full record: tract, head, tokens, budget, messages with provenance, dropped, pruned")
	return cmd
}

// printCompile prints a compile in format f: the dropped messages'
// note on stderr (not with --json), the result on stdout.
func printCompile(env *clienv.Env, res tract.Result, f wire.Format, budget int, asJSON bool) error {
	dropped := func() {
		if asJSON {
			return
		}
		clienv.PrunedNote(env, res.Pruned)
		if len(res.Dropped) == 0 {
			return
		}
		var short []string
		tokens := 0
		for _, d := range res.Dropped {
			short = append(short, d.Commit.Short())
			tokens += d.Tokens
		}
		fmt.Fprintf(env.Stderr, "budget %d: dropped %d messages (%d tokens): %s\n", budget, len(res.Dropped), tokens, strings.Join(short, " "))
	}
	if f == wire.FormatOpenAI {
		// Shaped and written message by message: the bytes
		// WriteJSON prints of the rendered list.
		if len(res.Messages) > 0 {
			dropped()
		}
		err := wire.WriteOpenAI(env.Stdout, res, clienv.JSONIndent)
		if errors.Is(err, wire.ErrEmptyContext) {
			return clienv.FindingError(err)
		}
		return err
	}
	out, err := wire.Render(res, f)
	if errors.Is(err, wire.ErrEmptyContext) {
		return clienv.FindingError(err)
	}
	if err != nil {
		return err
	}
	dropped()
	if v, ok := out.JSON(); ok {
		return clienv.WriteJSON(env.Stdout, v)
	}
	fmt.Fprint(env.Stdout, out.Text)
	return nil
}
