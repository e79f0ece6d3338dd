package tract

import (
	"context"
	"fmt"
	"math/bits"
)

// A store keeps, beside each commit, where it sits in the DAG (its
// [Position]), so the questions an agent asks on every step read a few rows
// instead of a whole history: the Nth first parent follows skip pointers
// (skew-binary jumps: O(log N) rows), and "is A an ancestor of B?" walks
// down from B only through commits whose generation is above A's.

// Position places a commit in the DAG. It is derived from the parents, not
// hashed; a zero Position (Gen 0) means "not known" (a commit written by an
// older lineage, or straight through a Store), and the questions it would
// answer fall back to reading the ancestry.
type Position struct {
	// Gen is 1 + the highest Gen of the parents (1 for a root).
	Gen int64
	// Depth is the number of first-parent ancestors.
	Depth int64
	// Jump is the first-parent ancestor at depth jumpDepth(Depth); "" for a
	// root.
	Jump Hash
}

// Known reports whether g was computed.
func (g Position) Known() bool { return g.Gen > 0 }

// jumpDepth is the depth of the skip pointer of a commit at depth d: the
// skew-binary scheme, in which any first-parent ancestor is reached in
// O(log d) steps of either a jump or a first parent.
func jumpDepth(d int64) int64 {
	// The jump spans the last term of d's greedy decomposition into numbers
	// 2^k-1 (1, 3, 7, 15, …), ending at a term that is repeated.
	n := d
	for n > 0 {
		s := int64(1)<<(bits.Len64(uint64(n+1))-1) - 1
		if n == s {
			return d - s
		}
		n -= s
	}
	return 0
}

// placeCommits fills the Position of each commit from its parents: earlier
// commits of the list or stored ones. A parent of unknown graph leaves the
// child unknown.
func placeCommits(ctx context.Context, rd Finder, commits []Commit) error {
	placed := make(map[Hash]*Commit, len(commits))
	get := func(h Hash) (Position, error) {
		if c, ok := placed[h]; ok {
			return c.Pos, nil
		}
		c, err := rd.Commit(ctx, h)
		return c.Pos, err
	}
	for i := range commits {
		c := &commits[i]
		pos, err := childPosition(c.Parents, get)
		if err != nil {
			return fmt.Errorf("commit %s: %w", c.Hash.Short(), err)
		}
		c.Pos = pos
		placed[c.Hash] = c
	}
	return nil
}

// childPosition is the Position of a commit with parents, from pos (a
// commit's position); unknown when a parent's is.
func childPosition(parents []Hash, pos func(Hash) (Position, error)) (Position, error) {
	c := Position{Gen: 1}
	for j, ph := range parents {
		p, err := pos(ph)
		if err != nil {
			return Position{}, fmt.Errorf("parent %s: %w", ph.Short(), err)
		}
		if !p.Known() {
			return Position{}, nil
		}
		c.Gen = max(c.Gen, p.Gen+1)
		if j > 0 {
			continue
		}
		c.Depth = p.Depth + 1
		// The jump is the parent itself or its jump's jump.
		c.Jump = ph
		if jumpDepth(c.Depth) != p.Depth {
			j1, j1Hash := p, ph
			if p.Jump != "" {
				if j1, err = pos(p.Jump); err != nil {
					return Position{}, err
				}
				j1Hash = p.Jump
			}
			c.Jump = j1.Jump
			if c.Jump == "" {
				c.Jump = j1Hash
			}
		}
	}
	return c, nil
}

// Placer computes the positions of stored commits that have none (a
// store's migration from a schema without them). Fed commits in
// parent-before-child order it reads nothing; a parent it has not seen is
// read with Stored (and placed first, so any order is right). It keeps the
// position of every commit it saw: O(n) memory for n commits.
type Placer struct {
	// Stored returns a stored commit's parents and its stored position
	// (unknown when it has none).
	Stored func(Hash) ([]Hash, Position, error)
	pos    map[Hash]Position
}

// Place returns the position of commit h with parents, computing it (and
// that of any ancestor not seen yet) when stored is unknown.
func (pl *Placer) Place(h Hash, parents []Hash, stored Position) (Position, error) {
	if pl.pos == nil {
		pl.pos = map[Hash]Position{}
	}
	if p, ok := pl.pos[h]; ok {
		return p, nil
	}
	if stored.Known() {
		pl.pos[h] = stored
		return stored, nil
	}
	if pl.placed(parents) {
		// The common case, commits fed parents first.
		p, err := childPosition(parents, pl.known)
		if err != nil {
			return Position{}, fmt.Errorf("commit %s: %w", h.Short(), err)
		}
		pl.pos[h] = p
		return p, nil
	}
	type frame struct {
		h       Hash
		parents []Hash
	}
	stack := []frame{{h, parents}}
	onStack := map[Hash]bool{h: true}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		waiting := false
		for _, ph := range f.parents {
			if _, ok := pl.pos[ph]; ok {
				continue
			}
			if onStack[ph] {
				return Position{}, fmt.Errorf("commit %s: a cycle through parent %s", f.h.Short(), ph.Short())
			}
			pp, ppos, err := pl.Stored(ph)
			if err != nil {
				return Position{}, fmt.Errorf("parent %s of %s: %w", ph.Short(), f.h.Short(), err)
			}
			if ppos.Known() {
				pl.pos[ph] = ppos
				continue
			}
			// One parent at a time: the stack is a path of the DAG.
			stack = append(stack, frame{ph, pp})
			onStack[ph] = true
			waiting = true
			break
		}
		if waiting {
			continue
		}
		p, err := childPosition(f.parents, pl.known)
		if err != nil {
			return Position{}, fmt.Errorf("commit %s: %w", f.h.Short(), err)
		}
		pl.pos[f.h] = p
		delete(onStack, f.h)
		stack = stack[:len(stack)-1]
	}
	return pl.pos[h], nil
}

// placed reports whether every one of hashes has a position.
func (pl *Placer) placed(hashes []Hash) bool {
	for _, h := range hashes {
		if _, ok := pl.pos[h]; !ok {
			return false
		}
	}
	return true
}

// known is a position Place computed or read, reading a jump target it
// has not seen.
func (pl *Placer) known(h Hash) (Position, error) {
	if p, ok := pl.pos[h]; ok {
		return p, nil
	}
	_, p, err := pl.Stored(h)
	if err == nil && p.Known() {
		pl.pos[h] = p
	}
	return p, err
}

// putCommits places commits in the DAG and stores them.
func putCommits(ctx context.Context, tx Tx, commits ...Commit) error {
	if err := placeCommits(ctx, tx, commits); err != nil {
		return err
	}
	return tx.PutCommits(ctx, commits...)
}

// firstParentAncestor returns the commit n first parents behind h, reading
// O(log n) rows when h's graph is known; ok is false when the history
// behind h is shorter than n, with have the number of commits it has.
func firstParentAncestor(ctx context.Context, rd Finder, h Hash, n int) (anc Hash, have int64, ok bool, err error) {
	if pw, isPW := rd.(PointerWalker); isPW && n >= walkFrom {
		anc, have, ok, done, err := walkPointers(ctx, pw, h, n)
		if err != nil || done {
			return anc, have, ok, err
		}
	}
	c, err := rd.Commit(ctx, h)
	if err != nil {
		return "", 0, false, err
	}
	if !c.Pos.Known() {
		for i := 0; i < n; i++ {
			if len(c.Parents) == 0 {
				return "", int64(i), false, nil
			}
			if c, err = rd.Commit(ctx, c.Parents[0]); err != nil {
				return "", 0, false, err
			}
		}
		return c.Hash, 0, true, nil
	}
	target := c.Pos.Depth - int64(n)
	if target < 0 {
		return "", c.Pos.Depth, false, nil
	}
	for c.Pos.Depth > target {
		next := c.Parents[0]
		if c.Pos.Jump != "" && jumpDepth(c.Pos.Depth) >= target {
			next = c.Pos.Jump
		}
		if c, err = rd.Commit(ctx, next); err != nil {
			return "", 0, false, err
		}
		if !c.Pos.Known() {
			return "", 0, false, fmt.Errorf("commit %s: graph lost on the way to ~%d", c.Hash.Short(), n)
		}
	}
	return c.Hash, 0, true, nil
}

// isAncestor reports whether a is b or one of b's ancestors. With known
// graphs it walks down from b only through commits of a higher generation
// than a's, reading what lies between them; otherwise it reads b's
// ancestry.
func isAncestor(ctx context.Context, rd Reader, a, b Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	ac, err := rd.Commit(ctx, a)
	if err != nil {
		return false, err
	}
	bc, err := rd.Commit(ctx, b)
	if err != nil {
		return false, err
	}
	if !ac.Pos.Known() || !bc.Pos.Known() {
		return isAncestorByAncestry(ctx, rd, a, b)
	}
	seen := map[Hash]bool{b: true}
	stack := []Commit{bc}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c.Pos.Gen <= ac.Pos.Gen {
			continue
		}
		// Common case first: a is a direct parent.
		for _, p := range c.Parents {
			if p == a {
				return true, nil
			}
		}
		for i := len(c.Parents) - 1; i >= 0; i-- {
			p := c.Parents[i]
			if seen[p] {
				continue
			}
			seen[p] = true
			pc, err := rd.Commit(ctx, p)
			if err != nil {
				return false, err
			}
			if !pc.Pos.Known() {
				return isAncestorByAncestry(ctx, rd, a, b)
			}
			if pc.Pos.Gen > ac.Pos.Gen {
				stack = append(stack, pc)
			}
		}
	}
	return false, nil
}

func isAncestorByAncestry(ctx context.Context, rd Reader, a, b Hash) (bool, error) {
	anc, err := rd.Ancestry(ctx, []Hash{b})
	if err != nil {
		return false, err
	}
	for _, c := range anc {
		if c.Hash == a {
			return true, nil
		}
	}
	return false, nil
}

// walkFrom is the N from which HEAD~N is one walk of the store's pointers
// (PointerWalker) rather than a Commit read a step: a walk's query costs a
// fresh process about as much to prepare as four or five point reads, and
// the path to a near ancestor is a few steps.
const walkFrom = 32

// walkPointers is firstParentAncestor on a store that walks pointers: one
// read of h's position, one of the whole path to the ancestor (the depths
// the skip pointers lead to follow from h's depth alone, so the path is
// known before it is walked). done is false when the walk cannot tell (h's
// position is not known, or the path ends early or elsewhere, which only a
// damaged graph does): the caller then walks a commit at a time, and says
// what is wrong.
func walkPointers(ctx context.Context, pw PointerWalker, h Hash, n int) (anc Hash, have int64, ok, done bool, err error) {
	_, pos, _, err := pw.WalkPointers(ctx, h, "")
	if err != nil || !pos.Known() {
		return "", 0, false, err != nil, err
	}
	target := pos.Depth - int64(n)
	if target < 0 {
		return "", pos.Depth, false, true, nil
	}
	steps := skipPath(pos.Depth, target)
	at, got, taken, err := pw.WalkPointers(ctx, h, steps)
	if err != nil {
		return "", 0, false, true, err
	}
	if taken != len(steps) || !got.Known() || got.Depth != target {
		return "", 0, false, false, nil
	}
	return at, 0, true, true, nil
}

// skipPath is the walk from a commit at depth d to its first-parent
// ancestor at depth target: 'j' where the skip pointer does not overshoot,
// else 'p' (firstParentAncestor's choice at each commit).
func skipPath(d, target int64) string {
	var b []byte
	for d > target {
		if jumpDepth(d) >= target {
			b, d = append(b, 'j'), jumpDepth(d)
		} else {
			b, d = append(b, 'p'), d-1
		}
	}
	return string(b)
}
