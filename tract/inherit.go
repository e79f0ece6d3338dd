package tract

import (
	"context"
	"errors"
)

// A reference child's context is its parent's context as the parent
// compiles it. The child's history starts with the parent's history at the
// spawn commit, so the linearization already agrees; what a viewer decides
// (annotations, and which spawn seeds it renders) is inherited too: for a
// commit the viewer sees through its spawn point (an ancestor of the spawn
// commit), the viewer's own annotation decides, else the parent's view of
// it, which is decided the same way up the chain of reference spawns. A
// spawn seed (the first commit of a snapshot or empty child) renders only
// in its own tract and in what that tract passes on by reference: never in
// a parent, sibling or cousin that merged the child's work.

// inheritLevel is one step up the viewer's chain of reference spawns: the
// tract whose view decides for the commits in its set (the ancestors of
// the spawn commit that made the level below it).
type inheritLevel struct {
	tract string
	in    []bool // by place in the linearization
}

func (l *inheritLevel) has(i int) bool { return i < len(l.in) && l.in[i] }

// inheritance is the viewer's chain of reference spawns as the view's
// linearization holds it, made by refreshInheritance.
type inheritance struct {
	levels []inheritLevel
	// spawns are the spawn commits of the whole chain, found in the view
	// or not: a new commit that is one of them changes the chain.
	spawns map[Hash]bool
	// complete: every spawn commit of the chain was found.
	complete bool
	// n is how many commits the linearization held when it was made.
	n int
}

// refreshInheritance makes v.inh when the linearization grew since it was
// made and the chain was not complete (a complete chain never changes: a
// spawn commit's ancestors are all emitted before it).
func (v *view) refreshInheritance() {
	if v.inh != nil && (v.inh.complete || v.inh.n == len(v.lin.order)) {
		return
	}
	inh := &inheritance{n: len(v.lin.order), complete: true}
	v.inh = inh
	var within []bool // the level below's set; nil: the whole view
	for t := v.viewer; t.Spawn != nil && t.Spawn.Mode == SpawnReference && t.Spawn.Commit != ""; {
		if inh.spawns == nil {
			inh.spawns = map[Hash]bool{}
		}
		if len(inh.levels) > len(v.tracts) {
			break // a spawn cycle (only a damaged store has one)
		}
		inh.spawns[t.Spawn.Commit] = true
		at, ok := v.lin.index(t.Spawn.Commit)
		if !ok {
			inh.complete = false // it may come in with later commits
			break
		}
		if within != nil && !within[at] {
			break // not seen through the level below: the chain ends here
		}
		in := make([]bool, at+1)
		for _, i := range v.reachable(at, -1) {
			in[i] = true
		}
		inh.levels = append(inh.levels, inheritLevel{tract: t.Spawn.Parent, in: in})
		within = in
		next, ok := v.tracts[t.Spawn.Parent]
		if !ok {
			inh.complete = false
			break
		}
		t = next
	}
}

// seedSeen reports whether the viewer renders a seed at place i authored
// by author: its own, or one a tract it inherits from renders there.
func (v *view) seedSeen(i int, author string) bool {
	if author == v.viewer.ID {
		return true
	}
	if v.inh == nil {
		return false
	}
	for k := range v.inh.levels {
		l := &v.inh.levels[k]
		if !l.has(i) {
			return false
		}
		if l.tract == author {
			return true
		}
	}
	return false
}

// inheritedPriority is the annotation that decides commit c at place i
// for the viewer through its spawn chain, if any.
func (v *view) inheritedPriority(i int, c Hash) (Priority, bool) {
	if v.inh == nil {
		return "", false
	}
	for k := range v.inh.levels {
		l := &v.inh.levels[k]
		if !l.has(i) {
			break
		}
		if p, ok := v.ann[annKey{l.tract, c}]; ok {
			return p, true
		}
	}
	return "", false
}

// growsInheritance reports whether commits from place from on bring a
// spawn commit of the viewer's chain into the view.
func (v *view) growsInheritance(from int) bool {
	if v.inh != nil && v.inh.complete {
		return false
	}
	spawns := map[Hash]bool{}
	if v.inh != nil {
		spawns = v.inh.spawns
	} else {
		// A view read from a checkpoint: the chain as the tracts say.
		for t, n := v.viewer, 0; t.Spawn != nil && t.Spawn.Mode == SpawnReference && t.Spawn.Commit != "" && n <= len(v.tracts); n++ {
			spawns[t.Spawn.Commit] = true
			next, ok := v.tracts[t.Spawn.Parent]
			if !ok {
				return true // unknown: render it all
			}
			t = next
		}
	}
	if len(spawns) == 0 {
		return false
	}
	for _, c := range v.lin.order[from:] {
		if spawns[c.Hash] {
			return true
		}
	}
	return false
}

// loadTracts makes sure v knows every author tract and its spawn
// ancestors, and the viewer's.
func (r *Repo) loadTracts(ctx context.Context, v *view, from int) error {
	if v.viewer.Spawn != nil {
		if err := r.loadTractChain(ctx, v, v.viewer.Spawn.Parent, false); err != nil {
			return err
		}
	}
	for _, c := range v.lin.order[from:] {
		if err := r.loadTractChain(ctx, v, c.Tract, true); err != nil {
			return err
		}
	}
	return nil
}

// loadTractChain loads tract id and its spawn ancestors into v.tracts;
// with known, an id v already knows is taken to have its ancestors known.
func (r *Repo) loadTractChain(ctx context.Context, v *view, id string, known bool) error {
	first := id
	for steps := 0; id != "" && steps <= len(v.tracts); steps++ {
		t, ok := v.tracts[id]
		if !ok {
			var err error
			if t, err = r.store.TractByID(ctx, id); err != nil {
				if !errors.Is(err, ErrNotFound) {
					return err
				}
				t = Tract{ID: id, Name: id}
			}
			v.tracts[id] = t
		} else if known && id == first {
			return nil
		}
		id = ""
		if t.Spawn != nil {
			id = t.Spawn.Parent
		}
	}
	return nil
}
