package tract

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Merge strategies.
const (
	StrategyOurs   = "ours"
	StrategyTheirs = "theirs"
)

// MergeOptions tune a merge.
type MergeOptions struct {
	// NoFF records a merge commit even when a fast-forward is possible.
	NoFF bool
	// Strategy resolves conflicts: "ours" or "theirs"; "" reports them.
	Strategy string
	// Message is the merge commit's message (default "merge BRANCH").
	Message string
	// DeleteBranch deletes the merged branch once the merge is done (it
	// is merged then, so no force is needed).
	DeleteBranch bool
}

// Merge kinds.
const (
	MergeUpToDate    = "up-to-date"
	MergeFastForward = "fast-forward"
	MergeCommit      = "merge"
)

// MergeResult says what a merge did.
type MergeResult struct {
	Kind string `json:"kind"`
	// Head is the branch's new tip.
	Head Hash `json:"head"`
	// Merge is the merge commit, when one was made.
	Merge Hash `json:"merge,omitempty"`
	// Resolved lists the conflicts a strategy settled.
	Resolved []Conflict `json:"resolved"`
	// Deleted is the branch --delete-branch deleted.
	Deleted string `json:"deleted,omitempty"`
}

// Merge merges ref (a branch of the tract) into the current branch and,
// with o.DeleteBranch, deletes it afterwards.
func (r *Repo) Merge(ctx context.Context, tractName, ref string, o MergeOptions) (MergeResult, error) {
	if o.DeleteBranch {
		// Refuse first: merging and then failing to delete would leave
		// half of what was asked done.
		_, h, err := r.Head(ctx, tractName)
		if err != nil {
			return MergeResult{}, err
		}
		if ref == h.Branch {
			return MergeResult{}, &ValidationError{Field: "branch", Value: ref, Reason: "is the current branch: --delete-branch cannot delete it (nothing merged)"}
		}
	}
	res, err := r.merge(ctx, tractName, ref, o)
	if err != nil || !o.DeleteBranch {
		return res, err
	}
	if err := r.DeleteBranch(ctx, tractName, ref, false); err != nil {
		return res, fmt.Errorf("merged, but deleting branch %s failed: %w", ref, err)
	}
	res.Deleted = ref
	return res, nil
}

// side is one side of a merge: what it has that the other does not.
type side struct {
	only  map[Hash]bool
	edits map[Hash]*Commit // target → latest edit on this side
	skips map[Hash]bool    // targets this side's newest annotation skips
}

func (r *Repo) merge(ctx context.Context, tractName, ref string, o MergeOptions) (MergeResult, error) {
	if err := o.Validate(); err != nil {
		return MergeResult{}, err
	}
	t, head, err := r.Head(ctx, tractName)
	if err != nil {
		return MergeResult{}, err
	}
	other, err := r.Resolve(ctx, t, ref)
	if err != nil {
		return MergeResult{}, err
	}
	// "Already merged?" and "fast-forward?" are ancestor tests, which read
	// what lies between the two heads; only a real merge reads both sides.
	rd := newMemoReader(r.store)
	if head.Commit != "" {
		if merged, err := isAncestor(ctx, rd, other, head.Commit); err != nil {
			return MergeResult{}, err
		} else if merged {
			return MergeResult{Kind: MergeUpToDate, Head: head.Commit, Resolved: []Conflict{}}, nil
		}
	}
	ff := head.Commit == ""
	if !ff && !o.NoFF {
		if ff, err = isAncestor(ctx, rd, head.Commit, other); err != nil {
			return MergeResult{}, err
		}
	}
	now := r.clock()
	if ff && !o.NoFF {
		err := r.store.Update(ctx, func(tx Tx) error {
			return moveHead(ctx, tx, t.ID, head, other, "merge "+ref+": fast-forward", now)
		})
		return MergeResult{Kind: MergeFastForward, Head: other, Resolved: []Conflict{}}, mergeErr(err)
	}
	ours, theirs, err := r.mergeSides(ctx, t, head.Commit, other)
	if err != nil {
		return MergeResult{}, err
	}
	conflicts := findConflicts(ours, theirs)
	if len(conflicts) > 0 && o.Strategy == "" {
		return MergeResult{}, &ConflictError{Conflicts: conflicts}
	}
	res := MergeResult{Kind: MergeCommit, Resolved: []Conflict{}}
	err = r.store.Update(ctx, func(tx Tx) error {
		message := o.Message
		if message == "" {
			message = "merge " + ref
		}
		m := Commit{Parents: []Hash{head.Commit, other}, Operation: OpMerge, Tract: t.ID, Time: now, Message: message}
		if head.Commit == "" {
			m.Parents = []Hash{other}
		}
		m.Hash = m.ComputeHash()
		if err := putCommits(ctx, tx, m); err != nil {
			return err
		}
		res.Merge, res.Head = m.Hash, m.Hash
		for _, c := range conflicts {
			tip, err := resolveConflict(ctx, tx, t, res.Head, c, ours, theirs, o.Strategy, now)
			if err != nil {
				return err
			}
			res.Head = tip
			res.Resolved = append(res.Resolved, c)
		}
		return moveHead(ctx, tx, t.ID, head, res.Head, "merge "+ref, now)
	})
	if err != nil {
		return MergeResult{}, mergeErr(err)
	}
	return res, nil
}

// mergeSides reads what each side of a merge of other into head has that
// the other lacks, with the tract's annotations.
func (r *Repo) mergeSides(ctx context.Context, t Tract, head, other Hash) (ours, theirs side, err error) {
	oursAnc, err := r.ancestrySet(ctx, head)
	if err != nil {
		return side{}, side{}, err
	}
	theirsAnc, err := r.ancestrySet(ctx, other)
	if err != nil {
		return side{}, side{}, err
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{Viewers: []string{t.ID}})
	if err != nil {
		return side{}, side{}, err
	}
	return newSide(oursAnc, theirsAnc, head, anns), newSide(theirsAnc, oursAnc, other, anns), nil
}

func mergeErr(err error) error {
	if errors.Is(err, ErrBranchMoved) {
		return fmt.Errorf("merge failed, nothing changed: %w", ErrBranchMoved)
	}
	return err
}

func (r *Repo) ancestrySet(ctx context.Context, head Hash) (map[Hash]*Commit, error) {
	out := map[Hash]*Commit{}
	if head == "" {
		return out, nil
	}
	anc, err := r.store.Ancestry(ctx, []Hash{head})
	if err != nil {
		return nil, err
	}
	for i := range anc {
		out[anc[i].Hash] = &anc[i]
	}
	return out, nil
}

func newSide(mine, other map[Hash]*Commit, tip Hash, anns []Annotation) side {
	s := side{only: map[Hash]bool{}, edits: map[Hash]*Commit{}, skips: map[Hash]bool{}}
	for h := range mine {
		if other[h] == nil {
			s.only[h] = true
		}
	}
	if tip != "" {
		l := linearizer{get: mapSource(mine)}
		if err := l.add(tip); err == nil {
			for _, c := range l.order {
				if s.only[c.Hash] && c.Operation == OpEdit {
					s.edits[c.EditTarget] = c
				}
			}
		}
	}
	// What this side decided about a commit's priority since the fork: its
	// newest annotation made on its own commits. One recorded before the
	// fork is where both sides started, not a side's choice: a skip there
	// that one side took back (annotated normal) does not make the other
	// side "skip" what the first one edits.
	newest := map[Hash]Priority{}
	for _, a := range anns {
		if a.Head != "" && s.only[a.Head] {
			newest[a.Commit] = a.Priority
		}
	}
	for h, p := range newest {
		if p == Skip {
			s.skips[h] = true
		}
	}
	return s
}

func findConflicts(ours, theirs side) []Conflict {
	var out []Conflict
	// An edit both sides made alike is no disagreement: a skip on either
	// side is then the only change, and merges cleanly whichever way.
	for target, e := range ours.edits {
		te, theirsEdit := theirs.edits[target]
		if theirsEdit && te.Content != e.Content {
			out = append(out, Conflict{Kind: "both-edit", Target: target, Ours: "edit", Theirs: "edit"})
		} else if !theirsEdit && theirs.skips[target] {
			out = append(out, Conflict{Kind: "skip-vs-edit", Target: target, Ours: "edit", Theirs: "skip"})
		}
	}
	for target := range theirs.edits {
		if ours.skips[target] && ours.edits[target] == nil {
			out = append(out, Conflict{Kind: "skip-vs-edit", Target: target, Ours: "skip", Theirs: "edit"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

// resolveConflict records the chosen side of c on top of tip: the chosen
// edit as a new edit commit (and, against a skip, an annotation restoring
// the default priority), or the chosen skip as an annotation.
func resolveConflict(ctx context.Context, tx Tx, t Tract, tip Hash, c Conflict, ours, theirs side, strategy string, now time.Time) (Hash, error) {
	chosen, kind := ours, c.Ours
	if strategy == StrategyTheirs {
		chosen, kind = theirs, c.Theirs
	}
	target, err := tx.Commit(ctx, c.Target)
	if err != nil {
		return tip, err
	}
	if kind == "skip" {
		return tip, tx.AddAnnotation(ctx, Annotation{Viewer: t.ID, Commit: c.Target, Priority: Skip, Reason: "merge --strategy " + strategy, Time: now, Head: tip})
	}
	e := chosen.edits[c.Target]
	blobs, err := tx.Blobs(ctx, []Hash{e.Content}, "")
	if err != nil || len(blobs) != 1 {
		return tip, fmt.Errorf("blob of edit %s: %w", e.Hash.Short(), ErrNotFound)
	}
	content, err := DecodeContent(blobs[0].Data)
	if err != nil {
		return tip, err
	}
	ec, err := putEdit(ctx, tx, t.ID, tip, c.Target, content, "merge --strategy "+strategy+": keep "+kind+" of "+c.Target.Short(), now)
	if err != nil {
		return tip, err
	}
	if c.Kind == "skip-vs-edit" {
		tb, err := tx.Blobs(ctx, []Hash{target.Content}, "")
		if err != nil || len(tb) != 1 {
			return tip, fmt.Errorf("blob of commit %s: %w", target.Hash.Short(), ErrNotFound)
		}
		tc, err := DecodeContent(tb[0].Data)
		if err != nil {
			return tip, err
		}
		a := Annotation{Viewer: t.ID, Commit: c.Target, Priority: DefaultPriority(tc.Type), Reason: "merge --strategy " + strategy, Time: now, Head: ec.Hash}
		if err := tx.AddAnnotation(ctx, a); err != nil {
			return tip, err
		}
	}
	return ec.Hash, nil
}
