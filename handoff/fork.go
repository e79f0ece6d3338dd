package handoff

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
)

// Forked is a session forked at a turn: the branch of the session's tract
// at that commit, and the handoff composed from it.
type Forked struct {
	Branch  string `json:"branch"`
	Handoff Result `json:"handoff"`
}

// ForkBranch is the name of the branch a fork at commit c makes.
func ForkBranch(c tract.Hash) string { return "fork-" + c.Short() }

// Fork branches the session's tract at o.At (fork-<commit>, made once:
// a second fork at the same commit finds it) and composes a handoff from
// that commit, recorded as a spawn there (see [Compose]). The session's own
// line (main) is not moved: the fork is the new branch and the handoff.
func Fork(ctx context.Context, o Options) (Forked, error) {
	if o.At == "" {
		return Forked{}, &tract.ValidationError{Field: "turn", Reason: "a fork names the turn it starts from: SESSION@TURN"}
	}
	t, err := o.Repo.Tract(ctx, o.Session.Tract)
	if err != nil {
		return Forked{}, err
	}
	c, err := o.Repo.Resolve(ctx, t, o.At)
	if err != nil {
		return Forked{}, err
	}
	name := ForkBranch(c)
	if _, err := o.Repo.CreateBranch(ctx, o.Session.Tract, name, string(c)); errors.Is(err, tract.ErrExists) {
		at, rerr := o.Repo.Resolve(ctx, t, name)
		if rerr != nil || at != c {
			return Forked{}, fmt.Errorf("branch %s of %s exists and is not at %s", name, o.Session.Tract, c.Short())
		}
	} else if err != nil {
		return Forked{}, err
	}
	o.At = string(c)
	res, err := Compose(ctx, o)
	if err != nil {
		return Forked{}, err
	}
	return Forked{Branch: name, Handoff: res}, nil
}
