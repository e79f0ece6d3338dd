package memorycmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/memory"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// Short is the group's one-line help.
const Short = "Memories across sessions and harnesses: add, list, show, edit, forget"

// NewCmd builds `lineage memory`.
func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("memory", Short, `Keep what an agent learned for the next session, in any harness. A memory is
a short text in one scope: the user's (every project), the project's (the
folder's project root, as lineage estimates it for AGENTS.md) or a CLIA
agent's (--slug). Each scope is a tract of the user's sessions store (--store,
LINEAGE_SESSIONS_STORE, LINEAGE_STORE, else the one under the state
directory): add is a commit, edit a tract edit, forget a skip annotation, so
'lineage tract log --tract TRACT --store STORE' shows a memory's history and
'lineage tract annotate ID normal' brings a forgotten one back (memory show
names the tract).

lineage's session-start hook delivers the newest and most relevant memories
once per session, each with where it came from, under its own cap
(LINEAGE_MEMORY_MAX_BYTES, default 4096). memory list also shows what the
harnesses keep themselves (Claude Code's auto memory MEMORY.md, Gemini CLI's
"Gemini Added Memories" in GEMINI.md), which lineage never sends to the harness
that loads them, and with --slug the agent's newest agency journal entries.
See docs/continue.md.`)
	cmd.Example = `  lineage memory add 'The integration tests need LINEAGE_NOW set.'
  lineage memory add --scope user 'Prefers tabs over spaces.'
  lineage memory list
  lineage memory edit a1b2c3d4 'The integration tests need LINEAGE_NOW and TZ=UTC.'
  lineage memory forget a1b2c3d4`
	cmd.AddCommand(addCmd(env), listCmd(env), showCmd(env), editCmd(env), forgetCmd(env))
	return cmd
}

// storeName is the sessions store as a user names it (no password), for
// the history hint.
func (f *whereFlags) storeName(env *clienv.Env) string {
	if s := env.Host().SessionsStoreSetting(f.store); s != "" {
		return stores.Redact(s)
	}
	p, err := clienv.DefaultSessionsStore(env)
	if err != nil {
		return "STORE"
	}
	return p
}

// whereFlags say whose memories a command sees.
type whereFlags struct {
	store, cwd, slug string
}

func (f *whereFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "the sessions store (default LINEAGE_SESSIONS_STORE, then LINEAGE_STORE, else the user's)")
	fl.StringVar(&f.cwd, "cwd", "", "the folder whose project's memories to use (default: the current one)")
	fl.StringVar(&f.slug, "slug", "", "a CLIA agent: its memories (and its agency journal's newest entries) too")
}

// where is the user, project and agent the flags name.
func (f *whereFlags) where(env *clienv.Env) (memory.Where, error) {
	cwd := env.Dir
	if f.cwd != "" {
		var err error
		if cwd, err = clienv.ExistingDir(env, "cwd", f.cwd, true); err != nil {
			return memory.Where{}, err
		}
	}
	fromEnv, warnings := env.Host().Instructions()
	clienv.InstructionsWarn(env, warnings)
	home := env.Host().Home
	cfg := instructions.BuildConfig(cwd, fromEnv)
	w := memory.Where{User: memory.UserOf(env.Host().Var, home), Project: memory.ProjectOf(cfg.Root, cwd, home),
		Slug: f.slug, Cwd: cwd}
	if f.slug != "" {
		if _, err := w.Scope(memory.Agent); err != nil {
			return memory.Where{}, clienv.UsageError("--slug: %v", err)
		}
	}
	return w, nil
}

// memErr maps the library's errors: bad input is a usage error (exit 2).
func memErr(err error) error {
	var ve *tract.ValidationError
	if errors.As(err, &ve) {
		return clienv.UsageError("%v", err)
	}
	return err
}

// readText is a command's text arguments joined, or stdin for "-".
func readText(env *clienv.Env, args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		data, err := io.ReadAll(io.LimitReader(env.Stdin, memory.MaxTextBytes+1))
		if err != nil {
			return "", fmt.Errorf("read the memory from stdin: %w", err)
		}
		return string(data), nil
	}
	return strings.Join(args, " "), nil
}

// line is a memory in a list: id (- for one lineage does not keep), scope,
// text, provenance.
func line(m memory.Memory) string {
	id := m.ID
	if id == "" {
		id = "-"
	}
	text := strings.ReplaceAll(m.Text, "\n", " ")
	return fmt.Sprintf("%-8s %-7s %s (%s)", id, m.Scope, fsx.LineSafe(text), memory.Origin(m))
}
