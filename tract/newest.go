package tract

import (
	"context"
	"slices"
)

// newestFirst produces the first entries of a head's linearization read
// backwards, reading only the commits it returns and those an ancestor test
// passes through: a log of n entries costs O(n) rows, not the history.
//
// Backwards, the linearization of a head is its first-parent chain newest
// first, each commit followed by the blocks of its other parents, last
// parent first, each block read backwards the same way. The block of parent
// j stops at what the linearization had emitted before it: the ancestors of
// the first j parents and of whatever the enclosing block excludes. That set
// is closed under ancestry, so "emitted" is an ancestor test against a few
// heads.
type newestFirst struct {
	rd    Reader
	limit int
	out   []*Commit
}

func (w *newestFirst) walk(ctx context.Context, tip Hash, exclude []Hash) error {
	for h := tip; h != "" && len(w.out) < w.limit; {
		for _, e := range exclude {
			if in, err := isAncestor(ctx, w.rd, h, e); err != nil {
				return err
			} else if in {
				return nil
			}
		}
		c, err := w.rd.Commit(ctx, h)
		if err != nil {
			return err
		}
		w.out = append(w.out, &c)
		for j := len(c.Parents) - 1; j >= 1 && len(w.out) < w.limit; j-- {
			if err := w.walk(ctx, c.Parents[j], append(slices.Clip(exclude), c.Parents[:j]...)); err != nil {
				return err
			}
		}
		h = ""
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	return nil
}

// memoReader remembers the commits it has read: an ancestor walk and the
// log around it ask for the same few commits again and again.
type memoReader struct {
	Reader
	commits map[Hash]Commit
}

func newMemoReader(rd Reader) *memoReader { return &memoReader{Reader: rd, commits: map[Hash]Commit{}} }

func (m *memoReader) Commit(ctx context.Context, h Hash) (Commit, error) {
	if c, ok := m.commits[h]; ok {
		return c, nil
	}
	c, err := m.Reader.Commit(ctx, h)
	if err == nil {
		m.commits[h] = c
	}
	return c, err
}
