package tract

import (
	"fmt"
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

// linearizer appends to order the commits of a history not yet in emitted.
type linearizer struct {
	get     commitSource
	emitted map[Hash]int
	order   []*Commit
}

func (l *linearizer) emit(c *Commit) {
	l.emitted[c.Hash] = len(l.order)
	l.order = append(l.order, c)
}

// add linearizes head's history into l (a no-op when head was emitted).
func (l *linearizer) add(head Hash) error {
	var chain []*Commit
	for h := head; h != ""; {
		if _, ok := l.emitted[h]; ok {
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
		if _, ok := l.emitted[c.Hash]; !ok {
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
