package tract

import (
	"context"
	"errors"
	"strconv"
)

// AppendTo appends reqs as one commit each on a branch of the tract, in one
// transaction, without touching HEAD: an importer keeps side records (a
// harness's bookkeeping lines) on a branch of their own while HEAD stays on
// the conversation. A missing branch is created, its first commit a root.
func (r *Repo) AppendTo(ctx context.Context, tractName, branch string, reqs []CommitRequest) ([]Commit, error) {
	if err := ValidateBranchName(branch); err != nil {
		return nil, err
	}
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	prepared := make([]preparedAppend, len(reqs))
	for i, req := range reqs {
		if prepared[i], err = prepareAppend(req); err != nil {
			if len(reqs) > 1 {
				return nil, &ValidationError{Field: "request " + strconv.Itoa(i+1), Reason: err.Error()}
			}
			return nil, err
		}
	}
	var out []Commit
	err = r.retry(ctx, func() error {
		out = out[:0]
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			ref, err := tx.Ref(ctx, t.ID, branch)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			w := chunkWriter{tx: tx, tract: t.ID, parent: Hash(ref.Value), now: now, emit: func(cs []Commit) { out = append(out, cs...) }}
			if err := w.store(ctx, w.chain(prepared, nil)); err != nil {
				return err
			}
			return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: branch, Old: ref.Value, New: string(w.parent), Operation: "commit", Time: now})
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
