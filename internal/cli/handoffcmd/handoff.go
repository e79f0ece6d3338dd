package handoffcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

const Short = "Start a new session from an imported one: its summary and latest turns, in any harness"

type flags struct {
	to       string
	budget   int
	summary  string
	store    string
	project  string
	encoding string
	asJSON   clienv.JSONFlag
	inf      clienv.InstructionsFlags
	pf       clienv.PruneFlags
}

func NewCmd(env *clienv.Env) *cobra.Command {
	f := &flags{}
	cmd := &cobra.Command{
		Use: "handoff [SESSION[@TURN]] [--to claude|codex|gemini|text|openai|anthropic] [--budget N] [--summary TEXT|FILE]",
		Example: `  lineage handoff --to codex --budget 8000            # this project's newest session, to Codex CLI
  lineage handoff 0a1b2c3d@HEAD~4 --to text --summary notes.md
  lineage handoff 0a1b2c3d --to anthropic --budget 4000 --json`,
		Short: Short,
		Long: `Compose the start of a new session from an imported one (lineage sessions),
with lineage context's engine: the summary (--summary, the caller's text or a
file of that name; else the harness's own compaction summary when the session
has one), then the turns after it under --budget, the commits the session
pinned or tagged, and for text, openai and anthropic the project's AGENTS.md
chain. The context the old harness injected is left out. With a --summary the
tail is the newest whole turns that fit the budget (without one: the last turn).

SESSION is a session id, tract name or a unique prefix (default: the newest
session of this project); TURN any ref of its tract (a commit as 'sessions
log' shows it, a tag, HEAD~N). The handoff is recorded as a tract spawned from
the session at TURN; the same inputs give the same tract and the same output.

--to text, openai or anthropic prints the context. --to claude, codex or
gemini leaves it pending for lineage's hook, which delivers it once at that
harness's next session start in the project (the session's folder, or
--project) within 24 hours, and prints the command that starts it.

--prune POLICY (default: the session tract's 'tract config prune') and
--drop-failed-turns leave stale tool output and failed tool steps out of the
handoff, the store untouched.

A budget the pinned part alone exceeds fails (exit 3) naming its largest parts.`,
		Args: clienv.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, env, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.to, "to", "text", "claude, codex or gemini (a pending handoff and the command to start it), or text, openai or anthropic (printed)")
	clienv.BudgetFlag(cmd, &f.budget, "most tokens the handoff may use (the pinned part is never cut)")
	fl.StringVar(&f.summary, "summary", "", "the session's summary up to the tail: text, or a file of that name ('-': stdin)")
	fl.StringVar(&f.store, "store", "", "the sessions store (default LINEAGE_SESSIONS_STORE, then LINEAGE_STORE, else the user's)")
	fl.StringVar(&f.project, "project", "", "folder whose next session start gets a harness handoff (default: the session's)")
	fl.StringVar(&f.encoding, "encoding", "", "token encoding: o200k_base (default) or cl100k_base")
	f.pf.Add(cmd)
	f.asJSON.Add(cmd, "print the handoff with the provenance of every block (and the pending handoff and command)")
	return cmd
}

func (f *flags) run(cmd *cobra.Command, env *clienv.Env, args []string) error {
	to, err := handoff.ParseTarget(f.to)
	if err != nil {
		return clienv.UsageError("unknown --to %q (want claude, codex, gemini, text, openai or anthropic)", f.to)
	}
	if err := f.pf.Check(); err != nil {
		return err
	}
	summary, err := f.readSummary(env)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, err := clienv.OpenSessions(ctx, env, f.store, true)
	if err != nil {
		return err
	}
	defer st.Close()
	ref, at := "", ""
	if len(args) == 1 {
		ref, at, _ = strings.Cut(args[0], "@")
		if ref == "" || (strings.Contains(args[0], "@") && at == "") {
			return clienv.UsageError("%q: want SESSION or SESSION@TURN", args[0])
		}
	}
	info, err := f.session(ctx, env, st.Repo, ref)
	if err != nil {
		return err
	}
	project := f.projectOf(env, info)
	f.inf.Cwd = project
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		f.inf.Cwd = ""
	}
	iopts, err := f.inf.Options(cmd, env)
	if err != nil {
		return err
	}
	clock, err := env.Clock()
	if err != nil {
		return err
	}
	prune, err := f.pf.Resolve(ctx, st.Repo, info.Tract)
	if err != nil {
		return err
	}
	out, err := handoff.Prepare(ctx, handoff.Options{Repo: st.Repo, Session: info, At: at, Summary: summary,
		Budget: f.budget, Encoding: f.encoding, To: to, Instructions: iopts, Prune: prune}, handoff.Dir(env.Host().StatePath("handoffs")), project, env.Dir, clock())
	if err != nil {
		return clienv.ComposeErr(err)
	}
	for _, w := range out.Context.Warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(w))
	}
	if f.asJSON.Set {
		return clienv.WriteJSON(env.Stdout, out)
	}
	return printOut(env, out)
}

// readSummary is --summary's text: a file of that name when one exists,
// stdin for "-", else the text itself.
func (f *flags) readSummary(env *clienv.Env) (string, error) {
	s := f.summary
	switch {
	case s == "-":
		data, err := io.ReadAll(io.LimitReader(env.Stdin, tract.MaxContentBytes+1))
		if err != nil {
			return "", fmt.Errorf("read --summary from stdin: %w", err)
		}
		s = string(data)
	case s != "" && !strings.ContainsAny(s, "\n"):
		p := fsx.Abs(env.Dir, s)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			data, err := fsx.ReadRegular(p, tract.MaxContentBytes)
			if err != nil {
				return "", fmt.Errorf("read --summary: %w", err)
			}
			s = string(data)
		}
	}
	if f.summary != "" && strings.TrimSpace(s) == "" {
		return "", clienv.UsageError("--summary is empty: give the text that stands for the session up to its tail")
	}
	return strings.TrimSpace(s), nil
}

// session finds the session ref names, or this project's newest.
func (f *flags) session(ctx context.Context, env *clienv.Env, repo *tract.Repo, ref string) (sessions.Info, error) {
	if ref != "" {
		info, err := sessions.Lookup(ctx, repo, ref)
		return info, clienv.TractErr(err)
	}
	dir := env.Dir
	if f.project != "" {
		dir = fsx.Abs(env.Dir, f.project)
	}
	list, err := sessions.List(ctx, repo, sessions.ListOptions{Cwd: dir})
	if err != nil {
		return sessions.Info{}, clienv.TractErr(err)
	}
	if len(list) == 0 {
		return sessions.Info{}, fmt.Errorf("no imported session of %s (lineage sessions import, or name one)", fsx.LineSafe(dir))
	}
	return list[0], nil
}

// projectOf is the folder a harness handoff is for: --project, else the
// session's working directory, else this one.
func (f *flags) projectOf(env *clienv.Env, info sessions.Info) string {
	switch {
	case f.project != "":
		return fsx.Abs(env.Dir, f.project)
	case info.Cwd != "" && filepath.IsAbs(info.Cwd):
		return filepath.Clean(info.Cwd)
	}
	return env.Dir
}

// printOut writes a printed target's context, or a harness target's command
// (the pending handoff named on stderr).
func printOut(env *clienv.Env, out handoff.Prepared) error {
	res := out.Context
	clienv.PrunedNote(env, res.Pruned)
	if n := len(res.DroppedMessages); n > 0 {
		tokens := 0
		for _, d := range res.DroppedMessages {
			tokens += d.Tokens
		}
		fmt.Fprintf(env.Stderr, "budget %d: dropped %d message(s) (%d tokens)\n", *res.Budget, n, tokens)
	}
	if out.Pending != nil {
		fmt.Fprintf(env.Stderr, "lineage: handoff %s of %s at %s (%d tokens) pending for %s in %s until %s\n",
			out.Tract, out.Session, out.At.Short(), res.Tokens, out.To, fsx.LineSafe(out.Pending.Project), out.Pending.Expires.Format(time.RFC3339))
		_, err := fmt.Fprintln(env.Stdout, out.Command)
		return err
	}
	return clienv.WriteRequest(env.Stdout, res.Request)
}
