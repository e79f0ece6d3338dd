package tract

import (
	"context"
	"fmt"
)

// SpawnOptions describe a child tract.
type SpawnOptions struct {
	Purpose string
	// Mode is reference (default), snapshot or empty.
	Mode SpawnMode
	// Budget bounds a snapshot's compiled parent context (0: none).
	Budget int
	// Encoding is the token encoding of a snapshot's budget.
	Encoding string
	// At is the parent's commit to spawn at (a ref of the parent); "" is
	// its head. An importer spawns a subagent at the tool call that
	// started it, long after the parent's head moved on.
	At string
}

// Spawn creates tract child from parent's current head and records the
// spawn pointer. In reference mode the child's branch starts at the
// parent's head, so its first commit has that head as first parent and the
// parent's context is seen by reference. Snapshot and empty modes start the
// child with one seed instruction: the parent's compiled context as text, or
// the purpose.
func (r *Repo) Spawn(ctx context.Context, parentName, child string, o SpawnOptions) (Tract, error) {
	if err := o.Validate(); err != nil {
		return Tract{}, err
	}
	if o.Mode == "" {
		o.Mode = SpawnReference
	}
	parent, head, err := r.Head(ctx, parentName)
	if err != nil {
		return Tract{}, err
	}
	if o.At != "" {
		if head.Commit, err = r.Resolve(ctx, parent, o.At); err != nil {
			return Tract{}, err
		}
	}
	var seed *Content
	switch o.Mode {
	case SpawnSnapshot:
		res, err := r.Compile(ctx, parentName, CompileOptions{At: string(head.Commit), Budget: o.Budget, Encoding: o.Encoding})
		if head.Commit == "" {
			res, err = Result{}, nil
		}
		if err != nil {
			return Tract{}, fmt.Errorf("snapshot of %s: %w", parentName, err)
		}
		if len(res.Messages) == 0 && len(res.Dropped) > 0 {
			// An empty seed would be a snapshot of nothing, silently.
			need := tokensPrimer + res.Dropped[len(res.Dropped)-1].Tokens
			return Tract{}, &ValidationError{Field: "budget", Value: fmt.Sprint(o.Budget), Reason: fmt.Sprintf(
				"keeps none of %s's %d messages for the snapshot (its newest alone needs %d tokens): give a larger --budget or none", parentName, len(res.Dropped), need)}
		}
		seed = &Content{Type: TypeInstruction, Text: Text(res.Messages), Seed: true}
	case SpawnEmpty:
		seed = &Content{Type: TypeInstruction, Text: o.Purpose, Seed: true}
	}
	now := r.clock()
	sp := &SpawnPointer{Parent: parent.ID, Commit: head.Commit, Purpose: o.Purpose, Mode: o.Mode, Time: now}
	return r.createTract(ctx, child, sp, func(tx Tx, t Tract) error {
		switch {
		case seed != nil:
			p := preparedAppend{req: CommitRequest{Message: "spawn seed: " + o.Purpose}}
			c, err := seed.Normalize()
			if err != nil {
				return err
			}
			if p.blob, err = NewBlob(c); err != nil {
				return err
			}
			commits := chainAppends(t.ID, "", []preparedAppend{p}, now, nil)
			if err := tx.PutBlobs(ctx, p.blob); err != nil {
				return err
			}
			if err := putCommits(ctx, tx, commits...); err != nil {
				return err
			}
			return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: DefaultBranch, New: string(commits[0].Hash), Operation: "spawn " + string(o.Mode), Time: now})
		case head.Commit != "":
			return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: DefaultBranch, New: string(head.Commit), Operation: "spawn reference", Time: now})
		}
		return nil
	})
}

// RemoveTract deletes a tract's refs and frees its name. Its commits stay
// as long as anything reaches them (a parent that merged them, say); gc
// removes the rest.
func (r *Repo) RemoveTract(ctx context.Context, name string) error {
	t, err := r.Tract(ctx, name)
	if err != nil {
		return err
	}
	return r.store.Update(ctx, func(tx Tx) error { return tx.DeleteTract(ctx, t.ID, r.clock()) })
}
