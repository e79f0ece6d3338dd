package hookcmd

import (
	"fmt"
	"time"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/internal/cli/clienv"
)

// pendingHandoff claims, at a new session's start, the handoff left for h
// in the session's project (lineage handoff --to): claimed by one process
// only, removed once the harness has it, put back when the answer could
// not be written. A pending file lineage cannot read is a warning; the
// harness's start goes on.
func pendingHandoff(env *clienv.Env, h *hooks.Harness, clock func() time.Time) func(hooks.Event) (string, func(bool)) {
	return func(ev hooks.Event) (string, func(bool)) {
		dir := handoff.Dir(env.Host().StatePath("handoffs"))
		c, err := dir.Claim(h.Name, ev.Cwd, clock())
		if err != nil {
			fmt.Fprintf(env.Stderr, "lineage: hook: pending handoff: %v\n", err)
			return "", nil
		}
		if c == nil {
			return "", nil
		}
		return c.Text, func(delivered bool) {
			var err error
			if delivered {
				err = c.Done()
			} else {
				err = c.Release()
			}
			if err != nil {
				fmt.Fprintf(env.Stderr, "lineage: hook: pending handoff %s: %v\n", c.Tract, err)
			}
		}
	}
}

// statusHandoff adds to st the handoff pending for its harness in project.
func statusHandoff(env *clienv.Env, st *hooks.Status, project string) error {
	clock, err := env.Clock()
	if err != nil {
		return err
	}
	p, ok, err := handoff.Dir(env.Host().StatePath("handoffs")).Peek(st.Harness, project, clock())
	if err != nil || !ok {
		return err
	}
	st.Handoff = &hooks.PendingHandoff{Session: p.Session, Tract: p.Tract, At: string(p.At), Project: p.Project, Expires: p.Expires}
	return nil
}

func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}
