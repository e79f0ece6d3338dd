package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/memory"
)

// sessionMemory gives a main agent's session start the memories of its
// user, project and agent (slug) it was not sent before, under
// LINEAGE_MEMORY_MAX_BYTES: lineage's own from the sessions store, the
// other harnesses' memory files, the agent's journal; recorded as sent
// once the answer reached the harness. Whatever fails is a warning: the
// harness's start goes on without memories.
func sessionMemory(ctx context.Context, env *clienv.Env, h *hooks.Harness, root instructions.RootConfig, slug string) func(hooks.Event) (string, func(bool)) {
	return func(ev hooks.Event) (string, func(bool)) {
		warn := func(format string, args ...any) {
			fmt.Fprintf(env.Stderr, "lineage: hook: memory: "+format+"\n", args...)
		}
		max, err := env.Host().MemoryMaxBytes(memory.DefaultMaxBytes)
		if err != nil {
			warn("%v", err)
			return "", nil
		}
		// Without a state directory nothing says what a session was sent:
		// no memory rather than memory twice.
		stateDir := env.Host().StatePath("memory")
		if max == 0 || stateDir == "" || ev.SessionID == "" || !usableDir(filepath.Dir(stateDir)) {
			return "", nil
		}
		home := env.Host().Home
		w := memory.Where{User: memory.UserOf(env.Host().Var, home), Project: memory.ProjectOf(root, ev.Cwd, home), Slug: slug, Cwd: ev.Cwd}
		var c memory.Candidates
		if storeNamed(env) {
			st, err := clienv.OpenSessions(ctx, env, "", false)
			if err != nil {
				warn("%v", err)
			} else {
				defer st.Close()
				if c.Lineage, err = memory.List(ctx, st.Repo, w); err != nil {
					warn("%v", err)
				}
			}
		}
		var warnings []string
		c.Native, warnings = memory.Native(memory.NativeEnv{Getenv: env.Host().Var, Home: home}, w)
		for _, s := range warnings {
			warn("%s", s)
		}
		var jw string
		if c.Journal, jw = memory.Journal(agents.Options{Path: ev.Cwd}, slug); jw != "" {
			warn("%s", fsx.LineSafe(jw))
		}
		o := memory.DeliverOptions{Where: w, Harness: h.Name, Session: ev.SessionID, StateDir: stateDir, MaxBytes: max}
		if h.StartInSystem || h.HeadPerRun && ev.Kind == hooks.Resume {
			// The earlier start's text, memories included, is no longer
			// before the model (a system prompt built per process, a head
			// shown per run): this start gets them again.
			o.StateDir = ""
		}
		d, err := memory.Deliver(c, o)
		if err != nil {
			warn("%v", err)
			return "", nil
		}
		return d.Text, func(delivered bool) {
			if !delivered {
				return
			}
			if err := d.Done(ctx); err != nil {
				warn("%v", err)
			}
		}
	}
}

// usableDir reports whether dir is a folder or not made yet (the state
// directory a hook could not use was the hook's to warn about, once).
func usableDir(dir string) bool {
	fi, err := os.Stat(dir)
	return errors.Is(err, fs.ErrNotExist) || err == nil && fi.IsDir()
}

// storeNamed reports whether there is a sessions store to read memories
// from: one a variable names, or the user's, made.
func storeNamed(env *clienv.Env) bool {
	if env.Host().SessionsStoreSetting("") != "" {
		return true
	}
	p, err := clienv.DefaultSessionsStore(env)
	if err != nil {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
