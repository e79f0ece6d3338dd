package sessionscmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/sessions"
)

const forkLong = `Fork an imported session at TURN (any ref of its tract: a commit as 'sessions
log' shows it, a tag, HEAD~N): a branch fork-<commit> of the session's tract at
that commit (its main line does not move), and a handoff from it as 'lineage
handoff SESSION@TURN' makes one (a tract spawned there). --to claude, codex or
gemini leaves the handoff pending for that harness's next session start in the
project and prints the command that starts it.`

func forkCmd(env *clienv.Env) *cobra.Command {
	var (
		sf      storeFlags
		to      string
		budget  int
		summary string
		project string
		asJSON  clienv.JSONFlag
		pf      clienv.PruneFlags
	)
	cmd := &cobra.Command{
		Use:   "fork SESSION@TURN [--to claude|codex|gemini|text|openai|anthropic] [--budget N] [--summary TEXT]",
		Short: "Fork a session at a turn: a branch of its tract there, and a handoff from it",
		Long:  forkLong,
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := handoff.ParseTarget(to)
			if err != nil {
				return clienv.UsageError("unknown --to %q (want claude, codex, gemini, text, openai or anthropic)", to)
			}
			ref, at, ok := strings.Cut(args[0], "@")
			if !ok || ref == "" || at == "" {
				return clienv.UsageError("%q: want SESSION@TURN (the turn the fork starts from)", args[0])
			}
			ctx := cmd.Context()
			repo, done, err := sf.open(ctx, env, true)
			if err != nil {
				return err
			}
			defer done()
			info, err := sessions.Lookup(ctx, repo, ref)
			if err != nil {
				return clienv.TractErr(err)
			}
			dir := env.Dir
			switch {
			case project != "":
				dir = fsx.Abs(env.Dir, project)
			case info.Cwd != "" && filepath.IsAbs(info.Cwd):
				dir = filepath.Clean(info.Cwd)
			}
			iopts, err := projectInstructions(cmd, env, dir)
			if err != nil {
				return err
			}
			forked, err := forkWith(ctx, &pf, handoff.Options{Repo: repo, Session: info, At: at, Summary: strings.TrimSpace(summary),
				Budget: budget, To: target, Instructions: iopts})
			if err != nil {
				return err
			}
			res := forked.Handoff
			out := struct {
				handoff.Forked
				Command string           `json:"command,omitempty"`
				Pending *handoff.Pending `json:"pending,omitempty"`
			}{Forked: forked}
			if target.Harness() {
				if out.Pending, err = leavePending(env, res, dir); err != nil {
					return err
				}
				out.Command = handoff.StartCommand(target, dir, env.Dir)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "forked %s at %s: branch %s, handoff %s (%d tokens)\n%s", res.Session, res.At.Short(), forked.Branch, res.Tract, res.Context.Tokens, lineOf(out.Command))
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&to, "to", "text", "where the handoff goes: claude, codex or gemini (pending for the hook), or text, openai or anthropic")
	clienv.BudgetFlag(cmd, &budget, "most tokens the handoff may use (the pinned part is never cut)")
	cmd.Flags().StringVar(&summary, "summary", "", "the session's summary up to the tail")
	cmd.Flags().StringVar(&project, "project", "", "folder whose next session start gets a harness handoff (default: the session's)")
	pf.Add(cmd)
	asJSON.Add(cmd, "")
	return cmd
}

// projectInstructions are the instruction options of the project's
// folder, or of the current one when that folder is not here.
func projectInstructions(cmd *cobra.Command, env *clienv.Env, dir string) (instructions.Options, error) {
	inf := clienv.InstructionsFlags{Cwd: dir}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		inf.Cwd = ""
	}
	return inf.Options(cmd, env)
}

// leavePending leaves res pending for its harness's next session start in
// project.
func leavePending(env *clienv.Env, res handoff.Result, project string) (*handoff.Pending, error) {
	clock, err := env.Clock()
	if err != nil {
		return nil, err
	}
	p := handoff.PendingOf(res, project, clock())
	return &p, handoff.Dir(env.Host().StatePath("handoffs")).Leave(p)
}

// forkWith forks as o says, with the prune policy the flags and the
// session tract's setting give.
func forkWith(ctx context.Context, pf *clienv.PruneFlags, o handoff.Options) (handoff.Forked, error) {
	prune, err := pf.Resolve(ctx, o.Repo, o.Session.Tract)
	if err != nil {
		return handoff.Forked{}, err
	}
	o.Prune = prune
	forked, err := handoff.Fork(ctx, o)
	if err != nil {
		return forked, clienv.ComposeErr(err)
	}
	return forked, nil
}

// lineOf is s as a line of its own, "" for none.
func lineOf(s string) string {
	if s == "" {
		return ""
	}
	return s + "\n"
}
