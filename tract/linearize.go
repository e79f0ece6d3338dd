package tract

import (
	"fmt"
	"sync"
)

// Linearization turns the DAG behind a head into the order commits are
// compiled in. From the oldest end of the head's first-parent history, each
// commit is emitted after the blocks of its other parents; a block is the
// part of a parent's history not emitted yet, linearized the same way, so
// nested merges expand recursively and every commit appears once. Emitted
// commits always have all their ancestors emitted before them, which is what
// lets a cached linearization of a head be extended when the head moves on:
// the new part is exactly what a cold run would append.

// commitSource finds commits by hash during a linearization.
type commitSource func(h Hash) (*Commit, error)

// linearizer appends to order the commits of a history not yet emitted.
type linearizer struct {
	get   commitSource
	order []*Commit
	// emitted is each commit's place in order, made from order when first
	// asked (a view read from a checkpoint and rendered as it is never
	// looks a commit up: 10k map entries are a fifth of its decoding).
	// mu guards making it: readers of a cached view may ask at once.
	emitted map[Hash]int
	mu      sync.Mutex
	// fresh are commits known not to be emitted yet (a warm extension's
	// first-parent path down to the view's head), each removed when it is
	// emitted: add emits them without asking emitted, so appending to an
	// unindexed view does not index it.
	fresh map[Hash]bool
}

// index is h's place in order.
func (l *linearizer) index(h Hash) (int, bool) {
	l.mu.Lock()
	l.indexAll()
	l.mu.Unlock()
	i, ok := l.emitted[h]
	return i, ok
}

// indexed reports whether emitted is made.
func (l *linearizer) indexed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.emitted != nil
}

// indexAll makes emitted if it is not made (the caller holds mu, or is
// the only one using l).
func (l *linearizer) indexAll() {
	if l.emitted == nil {
		l.emitted = make(map[Hash]int, len(l.order))
		for i, c := range l.order {
			l.emitted[c.Hash] = i
		}
	}
}

func (l *linearizer) emit(c *Commit) {
	if l.emitted != nil { // else made from order when first asked
		l.emitted[c.Hash] = len(l.order)
	}
	delete(l.fresh, c.Hash)
	l.order = append(l.order, c)
}

// isEmitted reports whether h is in order.
func (l *linearizer) isEmitted(h Hash) bool {
	if n := len(l.order); n > 0 && l.order[n-1].Hash == h {
		return true
	}
	if l.fresh[h] {
		return false
	}
	_, ok := l.index(h)
	return ok
}

// add linearizes head's history into l (a no-op when head was emitted).
func (l *linearizer) add(head Hash) error {
	if n := len(l.order); n > 0 && l.order[n-1].Hash == head {
		return nil // the last emitted: no need to index the others
	}
	var chain []*Commit
	for h := head; h != ""; {
		if l.isEmitted(h) {
			break
		}
		c, err := l.get(h)
		if err != nil {
			return err
		}
		chain = append(chain, c)
		h = ""
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		for _, p := range c.Parents[min(1, len(c.Parents)):] {
			if err := l.add(p); err != nil {
				return err
			}
		}
		if !l.isEmitted(c.Hash) {
			l.emit(c)
		}
	}
	return nil
}

// mapSource serves commits from a map loaded in one query.
func mapSource(m map[Hash]*Commit) commitSource {
	return func(h Hash) (*Commit, error) {
		c, ok := m[h]
		if !ok {
			return nil, fmt.Errorf("commit %s: %w", h.Short(), ErrNotFound)
		}
		return c, nil
	}
}
