package sqlite

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

// batchRows is how many rows one multi-row INSERT carries: a statement
// opens a cursor on its table and every index, so an import of 100k
// messages ran 3-5% faster per CPU second at 400 than at 100 (1000 gained
// nothing more); 400 rows of a commit's 14 columns stay far below
// SQLite's limit on parameters (32,766).
const batchRows = 400

// insertColumns runs "head (columns) VALUES (…), (…) suffix" over rows
// (len(names) values a row, laid end to end), per rows a statement, and
// returns how many rows the statements changed. Binding a value is a call
// into SQLite, and a text or a blob is copied for it; so a column that is
// NULL in every row is left out (it takes its default, NULL), and one
// that holds the same text or number in every row (an import's commits
// share their tract, operation and message) is bound once a statement:
// those come first in the column list, as ?1, ?2, …, and the rest are
// numbered on from there. It reuses rows' array.
func (t *txn) insertColumns(ctx context.Context, head string, names []string, suffix string, per int, rows []any) (int64, error) {
	cols := len(names)
	if cols == 0 || len(rows) == 0 {
		return 0, nil
	}
	const (
		varying = iota
		null
		constant
	)
	kind := make([]int, cols)
	for c := range cols {
		kind[c] = null
		if rows[c] != nil {
			kind[c] = constant
		}
	}
	for i := cols; i < len(rows); i++ {
		c := i % cols
		switch {
		case kind[c] == null && rows[i] != nil:
			kind[c] = varying
		case kind[c] == constant && !sameScalar(rows[c], rows[i]):
			kind[c] = varying
		}
	}
	var consts []any
	var constNames, varNames []string
	var tupleParts []string
	for c, name := range names {
		switch kind[c] {
		case constant:
			constNames = append(constNames, name)
			if e, ok := rows[c].(valueOf); ok {
				tupleParts = append(tupleParts, e.render(&consts))
				continue
			}
			consts = append(consts, rows[c])
			tupleParts = append(tupleParts, fmt.Sprintf("?%d", len(consts)))
		case varying:
			varNames = append(varNames, name)
		}
	}
	for range varNames {
		tupleParts = append(tupleParts, "?")
	}
	// Compact the varying values in place (never ahead of the reads).
	flat := rows[:0]
	for i, v := range rows {
		if kind[i%cols] == varying {
			flat = append(flat, v)
		}
	}
	head += " (" + strings.Join(append(constNames, varNames...), ", ") + ")"
	tuple := "(" + strings.Join(tupleParts, ", ") + ")"
	n := len(rows) / cols
	vcols := len(varNames)
	args := make([]any, len(consts), len(consts)+min(n, per)*vcols)
	copy(args, consts)
	var changed int64
	for done := 0; done < n; {
		k := min(n-done, per)
		query := head + " VALUES " + strings.Repeat(tuple+", ", k-1) + tuple + " " + suffix
		args = append(args[:len(consts)], flat[done*vcols:(done+k)*vcols]...)
		m, err := t.execRaw(ctx, query, args)
		if err != nil {
			return changed, err
		}
		changed += m
		done += k
	}
	return changed, nil
}

// valueOf is a column's value that a one-row insert (see insertColumns)
// computes in its own statement, sparing the lookup a statement of its
// own: query is a scalar subquery with a ? for each of args.
type valueOf struct {
	query string
	args  []any
}

// render is e's text with its parameters numbered on after consts, which
// it extends with their values.
func (e valueOf) render(consts *[]any) string {
	var b strings.Builder
	rest := e.query
	for _, a := range e.args {
		i := strings.IndexByte(rest, '?')
		*consts = append(*consts, a)
		fmt.Fprintf(&b, "%s?%d", rest[:i], len(*consts))
		rest = rest[i+1:]
	}
	b.WriteString(rest)
	return b.String()
}

// buffers are the transaction's row values and hash arena, emptied, with
// room for n values and size bytes: an import's chunks reuse them (see
// release).
func (t *txn) buffers(n, size int) ([]any, rawArena) {
	if cap(t.vals) < n {
		t.vals = make([]any, 0, n)
	}
	if cap(t.arena) < size {
		t.arena = make(rawArena, 0, size)
	}
	return t.vals[:0], t.arena[:0]
}

// release forgets the values of vals (taken from buffers), so that a
// chunk's contents are not kept alive by the next one's buffer.
func (t *txn) release(vals []any) {
	clear(vals[:cap(vals)])
}

// sameScalar reports whether a and b are the same text or number (a
// blob never counts as the same).
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case int:
		y, ok := b.(int)
		return ok && x == y
	}
	return false
}

// insertRows runs "prefix VALUES (…), (…) suffix" over rows of n columns in
// batches, reusing one prepared statement per batch size.
func (t *txn) insertRows(ctx context.Context, prefix, suffix string, cols int, rows [][]any) (int64, error) {
	flat := make([]any, 0, len(rows)*cols)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return t.insertFlat(ctx, prefix, "("+strings.Repeat("?, ", cols-1)+"?)", suffix, cols, batchRows, flat)
}

// insertFlat runs "prefix VALUES tuple, tuple, … suffix" over rows of cols
// values laid end to end in flat (no slice a row), per rows a statement;
// it returns how many rows the statements changed.
func (t *txn) insertFlat(ctx context.Context, prefix, tuple, suffix string, cols, per int, flat []any) (int64, error) {
	var changed int64
	for len(flat) > 0 {
		k := min(len(flat)/cols, per)
		query := prefix + " VALUES " + strings.Repeat(tuple+", ", k-1) + tuple + " " + suffix
		n, err := t.execRaw(ctx, query, flat[:k*cols])
		if err != nil {
			return changed, err
		}
		changed += n
		flat = flat[k*cols:]
	}
	return changed, nil
}

// rawArena decodes hashes into one buffer: an import binds four or five
// hashes a commit, each otherwise a 32-byte allocation of its own.
type rawArena []byte

// raw is h's raw form (rowform.Raw), or NULL for the empty hash (the
// driver binds a nil []byte as an empty blob, not NULL).
func (a *rawArena) raw(h tract.Hash) any {
	if h == "" {
		return nil
	}
	if len(h) != 64 || cap(*a)-len(*a) < 32 {
		return rowform.Raw(h)
	}
	b := []byte((*a)[len(*a) : len(*a)+32 : len(*a)+32])
	if _, err := hex.Decode(b, []byte(h)); err != nil {
		return rowform.Raw(h)
	}
	*a = (*a)[:len(*a)+32]
	return b
}
