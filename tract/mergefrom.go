package tract

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

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
	// parent's compile and the tokens before and after (equal when the
	// parent is up to date); nothing is stored.
	DryRun       bool      `json:"dryRun,omitzero"`
	Messages     []Message `json:"messages,omitempty"`
	TokensBefore int       `json:"tokensBefore,omitzero"`
	TokensAfter  int       `json:"tokensAfter,omitzero"`
}

// NothingSelectedError is a selective merge-from whose selection takes
// none of the child's commits the parent has not merged: refused (it
// would record a merge that brings nothing) unless AllowEmpty.
type NothingSelectedError struct {
	Parent, Child string
	// Offered counts the child's commits the merge could have taken.
	Offered int
}

func (e *NothingSelectedError) Error() string {
	return fmt.Sprintf("nothing selected: the selection takes none of the %d commits of %s not merged into %s (nothing changed; --allow-empty records the merge anyway)", e.Offered, e.Child, e.Parent)
}

// Unwrap makes it a usage error: what the command line asked for takes
// nothing.
func (e *NothingSelectedError) Unwrap() error {
	return &ValidationError{Field: "selection", Reason: "nothing selected"}
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
	parent, child, end, err := r.mergeFromTracts(ctx, childName, o.Into)
	if err != nil {
		return MergeFromResult{}, err
	}
	res := MergeFromResult{Parent: parent.Name, Child: child.Name, DryRun: o.DryRun}
	var meta jsontext.Value
	if o.selective() {
		sel, last, err := r.resolveSelection(ctx, child, end, o)
		if err != nil {
			return MergeFromResult{}, err
		}
		if meta, err = selectionMeta(sel); err != nil {
			return MergeFromResult{}, err
		}
		res.Selection, end = &sel, last
	}
	if o.DryRun {
		return r.mergeFromDry(ctx, parent, end, meta, o, res)
	}
	// A plain merge of a child whose head is not merged yet needs no more
	// than the ancestor test; a selective one, or one of a head merged
	// by a selective merge, asks what the merge would take.
	_, ph, err := r.Head(ctx, parent.Name)
	if err != nil {
		return MergeFromResult{}, err
	}
	force := false
	switch {
	case o.selective():
		pv, err := r.previewMergeFrom(ctx, parent, ph.Commit, end, meta, "", false)
		if err != nil {
			return MergeFromResult{}, err
		}
		if pv.upToDate {
			res.Kind, res.Head = MergeUpToDate, ph.Commit
			return res, nil
		}
		if pv.took == 0 && !o.AllowEmpty {
			return MergeFromResult{}, &NothingSelectedError{Parent: parent.Name, Child: child.Name, Offered: pv.offered}
		}
		force = true
	case ph.Commit != "":
		merged, again, err := r.plainMergeState(ctx, parent, ph.Commit, end)
		if err != nil {
			return MergeFromResult{}, err
		}
		if merged {
			res.Kind, res.Head = MergeUpToDate, ph.Commit
			return res, nil
		}
		force = again
	}
	return r.writeMergeFrom(ctx, parent, child, end, meta, force, res)
}

// mergeFromTracts finds the parent (into, else the child's spawn parent),
// the child and the child's head.
func (r *Repo) mergeFromTracts(ctx context.Context, childName, into string) (Tract, Tract, Hash, error) {
	child, ch, err := r.Head(ctx, childName)
	if err != nil {
		return Tract{}, Tract{}, "", err
	}
	if into == "" {
		if child.Spawn == nil {
			return Tract{}, Tract{}, "", &ValidationError{Field: "merge-from", Value: childName, Reason: "was not spawned; name the parent with --into"}
		}
		p, err := r.store.TractByID(ctx, child.Spawn.Parent)
		if err != nil {
			return Tract{}, Tract{}, "", fmt.Errorf("spawn parent of %s: %w", childName, err)
		}
		if !p.Deleted.IsZero() {
			return Tract{}, Tract{}, "", fmt.Errorf("spawn parent %s of %s was removed: %w", p.Name, childName, ErrNotFound)
		}
		into = p.Name
	}
	parent, err := r.Tract(ctx, into)
	if err != nil {
		return Tract{}, Tract{}, "", err
	}
	if parent.ID == child.ID {
		return Tract{}, Tract{}, "", &ValidationError{Field: "merge-from", Value: childName, Reason: "a tract cannot merge from itself"}
	}
	if ch.Commit == "" {
		return Tract{}, Tract{}, "", fmt.Errorf("tract %q: %w", childName, ErrNoCommits)
	}
	return parent, child, ch.Commit, nil
}

// writeMergeFrom stores the merge commit [parent head, end] unless end is
// merged already (and force, a preview that found something to take, is
// not set), retrying on a head another writer moved.
func (r *Repo) writeMergeFrom(ctx context.Context, parent, child Tract, end Hash, meta jsontext.Value, force bool, res MergeFromResult) (MergeFromResult, error) {
	err := r.retry(ctx, func() error {
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			ph, err := readHead(ctx, tx, parent.ID)
			if err != nil {
				return err
			}
			if ph.Commit != "" && !force {
				if up, err := isAncestor(ctx, tx, end, ph.Commit); err != nil {
					return err
				} else if up {
					res.Kind, res.Head, res.Merge = MergeUpToDate, ph.Commit, ""
					return nil
				}
			}
			m := Commit{Parents: []Hash{ph.Commit, end}, Operation: OpMerge, Tract: parent.ID, Time: now, Message: "merge-from " + child.Name, Meta: meta}
			if ph.Commit == "" {
				m.Parents = []Hash{end}
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
		return res, fmt.Errorf("merge-from %s failed, nothing changed: %w", child.Name, err)
	}
	return res, err
}

// plainMergeState tells whether a plain merge-from of end into a parent at
// ph would take nothing (merged), and whether it takes only what earlier
// selective merges left out (again: end is already an ancestor of ph). It
// reads what lies between the two heads, and the parent's history only
// when a selective merge is among it.
func (r *Repo) plainMergeState(ctx context.Context, parent Tract, ph, end Hash) (merged, again bool, err error) {
	up, err := isAncestor(ctx, r.store, end, ph)
	if err != nil || !up {
		return false, false, err
	}
	sel, err := selectiveAbove(ctx, r.store, ph, end)
	if err != nil || !sel {
		return true, false, err
	}
	pv, err := r.previewMergeFrom(ctx, parent, ph, end, nil, "", false)
	if err != nil {
		return false, false, err
	}
	return pv.took == 0, pv.took > 0, nil
}

// selectiveAbove reports whether a selective merge is among the commits
// top reaches that are newer (by generation) than end: only such a merge
// can have left out commits end reaches. Without stored positions it says
// yes.
func selectiveAbove(ctx context.Context, rd Finder, top, end Hash) (bool, error) {
	ec, err := rd.Commit(ctx, end)
	if err != nil {
		return false, err
	}
	seen := map[Hash]bool{top: true}
	stack := []Hash{top}
	for len(stack) > 0 {
		c, err := rd.Commit(ctx, stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if err != nil {
			return false, err
		}
		if !c.Pos.Known() || !ec.Pos.Known() || selectionOf(&c) != nil {
			return true, nil
		}
		if c.Pos.Gen <= ec.Pos.Gen {
			continue
		}
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false, nil
}

// mergePreview is the parent's view at its head with a merge commit
// [head, end] appended (never stored), and what that merge takes.
type mergePreview struct {
	v *view
	// before are the rendered messages' commits before the merge, and
	// tokensBefore their tokens with the primer.
	before       map[Hash]bool
	tokensBefore int
	// offered counts the commits the merge could take, took those it
	// takes (merge commits not counted); upToDate: it could take none.
	offered, took int
	upToDate      bool
}

// previewMergeFrom builds the parent's view at ph and appends the merge
// it would record. counted makes it count the tokens the store has no
// count for (a dry run prints them); else they stay uncounted.
func (r *Repo) previewMergeFrom(ctx context.Context, parent Tract, ph, end Hash, meta jsontext.Value, encoding string, counted bool) (*mergePreview, error) {
	counter, err := r.counter(encoding)
	if err != nil {
		return nil, &ValidationError{Field: "encoding", Value: encoding, Reason: err.Error()}
	}
	v, err := r.coldViewWith(ctx, parent, counter, ph, !counted)
	if err != nil {
		return nil, err
	}
	pv := &mergePreview{v: v, before: map[Hash]bool{}, tokensBefore: v.tokens + tokensPrimer}
	for _, m := range v.rendered {
		pv.before[m.Commit] = true
	}
	m := Commit{Parents: []Hash{ph, end}, Operation: OpMerge, Tract: parent.ID, Time: r.clock(), Meta: meta}
	if ph == "" {
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
		return nil, err
	}
	if err := r.loadEntries(ctx, v, from); err != nil {
		return nil, err
	}
	if err := r.loadTracts(ctx, v, from); err != nil {
		return nil, err
	}
	k := len(v.lin.order) - 1
	pk := v.selection()
	if pk.cands != nil {
		pv.offered, pv.took = pk.cands[k], pk.took[k]
	} else {
		// No selection and nothing left out: the merge takes its block.
		for _, c := range v.lin.order[from:k] {
			if c.Operation != OpMerge {
				pv.offered++
			}
		}
		pv.took = pv.offered
	}
	pv.upToDate = pv.offered == 0
	return pv, nil
}

// mergeFromDry answers as the merge would, storing nothing: the messages
// it adds to the parent's compile and the tokens before and after (both
// the parent's tokens when it is up to date).
func (r *Repo) mergeFromDry(ctx context.Context, parent Tract, end Hash, meta jsontext.Value, o MergeFromOptions, res MergeFromResult) (MergeFromResult, error) {
	_, ph, err := r.Head(ctx, parent.Name)
	if err != nil {
		return res, err
	}
	pv, err := r.previewMergeFrom(ctx, parent, ph.Commit, end, meta, o.Encoding, true)
	if err != nil {
		return res, err
	}
	res.Head, res.TokensBefore = ph.Commit, pv.tokensBefore
	if pv.upToDate || (pv.took == 0 && !o.selective()) {
		res.Kind, res.TokensAfter = MergeUpToDate, pv.tokensBefore
		return res, nil
	}
	if pv.took == 0 && !o.AllowEmpty {
		return MergeFromResult{}, &NothingSelectedError{Parent: parent.Name, Child: res.Child, Offered: pv.offered}
	}
	v := pv.v
	v.render()
	res.Kind, res.TokensAfter = MergeCommit, v.tokens+tokensPrimer
	res.Messages = []Message{}
	for _, msg := range v.rendered {
		if !pv.before[msg.Commit] {
			res.Messages = append(res.Messages, msg)
		}
	}
	return res, nil
}
