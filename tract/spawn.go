package tract

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
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

// MergeFromResult says what merge-from did.
type MergeFromResult struct {
	Kind   string `json:"kind"` // merge | up-to-date
	Parent string `json:"parent"`
	Child  string `json:"child"`
	Merge  Hash   `json:"merge,omitempty"`
	Head   Hash   `json:"head"`
	// Selection is what a selective merge takes (nil: everything).
	Selection *Selection `json:"selection,omitempty"`
	// DryRun results list the messages the merge would add to the
	// parent's compile and the tokens before and after; nothing is stored.
	DryRun       bool      `json:"dryRun,omitempty"`
	Messages     []Message `json:"messages,omitempty"`
	TokensBefore int       `json:"tokensBefore,omitempty"`
	TokensAfter  int       `json:"tokensAfter,omitempty"`
}

// MergeFrom records in parent (default: child's spawn parent) a merge commit
// whose parents are [parent head, child head]. Nothing is copied: the
// parent's compile reaches the child's work through the second parent. A
// merge-from cannot conflict (each tract edits only its own commits), so a
// lost race with another writer is retried on the new head.
func (r *Repo) MergeFrom(ctx context.Context, childName, into string) (MergeFromResult, error) {
	return r.MergeFromWith(ctx, childName, MergeFromOptions{Into: into})
}

// MergeFromWith is MergeFrom with a selection (see MergeFromOptions) or as
// a dry run.
func (r *Repo) MergeFromWith(ctx context.Context, childName string, o MergeFromOptions) (MergeFromResult, error) {
	if err := o.Validate(); err != nil {
		return MergeFromResult{}, err
	}
	into := o.Into
	child, ch, err := r.Head(ctx, childName)
	if err != nil {
		return MergeFromResult{}, err
	}
	if into == "" {
		if child.Spawn == nil {
			return MergeFromResult{}, &ValidationError{Field: "merge-from", Value: childName, Reason: "was not spawned; name the parent with --into"}
		}
		p, err := r.store.TractByID(ctx, child.Spawn.Parent)
		if err != nil {
			return MergeFromResult{}, fmt.Errorf("spawn parent of %s: %w", childName, err)
		}
		if !p.Deleted.IsZero() {
			return MergeFromResult{}, fmt.Errorf("spawn parent %s of %s was removed: %w", p.Name, childName, ErrNotFound)
		}
		into = p.Name
	}
	parent, err := r.Tract(ctx, into)
	if err != nil {
		return MergeFromResult{}, err
	}
	if parent.ID == child.ID {
		return MergeFromResult{}, &ValidationError{Field: "merge-from", Value: childName, Reason: "a tract cannot merge from itself"}
	}
	if ch.Commit == "" {
		return MergeFromResult{}, fmt.Errorf("tract %q: %w", childName, ErrNoCommits)
	}
	res := MergeFromResult{Parent: parent.Name, Child: child.Name, DryRun: o.DryRun}
	var meta jsontext.Value
	if o.selective() {
		sel, end, err := r.resolveSelection(ctx, child, ch.Commit, o)
		if err != nil {
			return MergeFromResult{}, err
		}
		if meta, err = selectionMeta(sel); err != nil {
			return MergeFromResult{}, err
		}
		res.Selection, ch.Commit = &sel, end
	}
	if o.DryRun {
		return r.mergeFromDry(ctx, parent, ch.Commit, meta, o.Encoding, res)
	}
	err = r.retry(ctx, func() error {
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			ph, err := readHead(ctx, tx, parent.ID)
			if err != nil {
				return err
			}
			if ph.Commit != "" {
				if up, err := isAncestor(ctx, tx, ch.Commit, ph.Commit); err != nil {
					return err
				} else if up {
					res.Kind, res.Head, res.Merge = MergeUpToDate, ph.Commit, ""
					return nil
				}
			}
			m := Commit{Parents: []Hash{ph.Commit, ch.Commit}, Operation: OpMerge, Tract: parent.ID, Time: now, Message: "merge-from " + child.Name, Meta: meta}
			if ph.Commit == "" {
				m.Parents = []Hash{ch.Commit}
			}
			m.Hash = m.ComputeHash()
			if err := putCommits(ctx, tx, m); err != nil {
				return err
			}
			res.Kind, res.Merge, res.Head = MergeCommit, m.Hash, m.Hash
			return moveHead(ctx, tx, parent.ID, ph, m.Hash, "merge-from "+child.Name, now)
		})
	})
	if err != nil && errors.Is(err, ErrBranchMoved) {
		return res, fmt.Errorf("merge-from %s failed, nothing changed: %w", childName, err)
	}
	return res, err
}

// mergeFromDry compiles the parent as it would be after the merge (a merge
// commit that is never stored) and lists the messages it adds.
func (r *Repo) mergeFromDry(ctx context.Context, parent Tract, end Hash, meta jsontext.Value, encoding string, res MergeFromResult) (MergeFromResult, error) {
	counter, err := r.counter(encoding)
	if err != nil {
		return res, &ValidationError{Field: "encoding", Value: encoding, Reason: err.Error()}
	}
	_, ph, err := r.Head(ctx, parent.Name)
	if err != nil {
		return res, err
	}
	if ph.Commit != "" {
		if up, err := isAncestor(ctx, r.store, end, ph.Commit); err != nil {
			return res, err
		} else if up {
			res.Kind, res.Head = MergeUpToDate, ph.Commit
			return res, nil
		}
	}
	v, err := r.coldView(ctx, parent, counter, ph.Commit)
	if err != nil {
		return res, err
	}
	res.TokensBefore = v.tokens + tokensPrimer
	before := map[Hash]bool{}
	for _, m := range v.rendered {
		before[m.Commit] = true
	}
	m := Commit{Parents: []Hash{ph.Commit, end}, Operation: OpMerge, Tract: parent.ID, Time: r.clock(), Meta: meta}
	if ph.Commit == "" {
		m.Parents = []Hash{end}
	}
	m.Hash = m.ComputeHash()
	from := len(v.lin.order)
	v.lin.get = func(h Hash) (*Commit, error) {
		if h == m.Hash {
			return &m, nil
		}
		c, err := r.store.Commit(ctx, h)
		return &c, err
	}
	if err := v.lin.add(m.Hash); err != nil {
		return res, err
	}
	if err := r.loadEntries(ctx, v, from); err != nil {
		return res, err
	}
	if err := r.loadTracts(ctx, v, from); err != nil {
		return res, err
	}
	v.render()
	res.Kind, res.Head, res.TokensAfter = MergeCommit, ph.Commit, v.tokens+tokensPrimer
	res.Messages = []Message{}
	for _, msg := range v.rendered {
		if !before[msg.Commit] {
			res.Messages = append(res.Messages, msg)
		}
	}
	return res, nil
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
