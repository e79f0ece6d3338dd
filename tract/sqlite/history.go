package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

// tokensExpr is the SQL expression of blob b's count in encoding (its
// dedicated column, else its key in the JSON object blobs.tokens), with its
// arguments.
func tokensExpr(encoding string) (string, []any) {
	if col, ok := rowform.TokenColumn(encoding); ok {
		return "b." + col, nil
	}
	if encoding == "" {
		return "NULL", nil
	}
	return "b.tokens ->> ?", []any{`$."` + encoding + `"`}
}

// historyLoader reads the commits reachable from some heads tract range by
// tract range (see doc.go): fetched[t] is the highest sequence number of
// tract t read so far.
//
// Ranges are walked by raw 32-byte hashes (the driver's own copies, no
// conversion per row); hex hashes are made only for the rows reached, all
// inside one string, so a history of n commits costs a handful of
// allocations per commit rather than two per hash.
type historyLoader struct {
	r        reader
	encoding string
	blobs    bool
	index    map[[32]byte]int32 // raw commit hash → position in rows
	rows     []tract.HistoryCommit
	raw      []rawHashes // parallel to rows
	reached  []bool      // parallel to rows
	fetched  map[string]int64
}

// rawHashes are a row's hashes as stored (content and target nil when
// absent, parents back to back).
type rawHashes struct {
	hash, content, target, parents []byte
}

func (r reader) History(ctx context.Context, heads []tract.Hash, encoding string) ([]tract.HistoryCommit, error) {
	hist, err := r.history(ctx, heads, encoding, true)
	return hist, damaged(err)
}

func (r reader) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	hist, err := r.history(ctx, heads, "", false)
	return rowform.Commits(hist), err
}

func (r reader) history(ctx context.Context, heads []tract.Hash, encoding string, blobs bool) ([]tract.HistoryCommit, error) {
	l := &historyLoader{r: r, encoding: encoding, blobs: blobs, index: map[[32]byte]int32{}, fetched: map[string]int64{}}
	var stack []int32
	for _, h := range heads {
		i, err := l.find(ctx, rowform.Raw(h))
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			stack = append(stack, i)
		}
	}
	reached := 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if l.reached[i] {
			continue
		}
		l.reached[i] = true
		reached++
		for p := l.raw[i].parents; len(p) >= 32; p = p[32:] {
			j, err := l.parentOf(ctx, i, p[:32])
			if err != nil {
				return nil, err
			}
			if j >= 0 {
				stack = append(stack, j)
			}
		}
	}
	return l.result(reached), nil
}

// find returns the position of the commit with raw hash h, reading its
// tract's range when needed; -1 when the commit is not stored (a missing
// commit is not part of any history).
func (l *historyLoader) find(ctx context.Context, h []byte) (int32, error) {
	if len(h) != 32 {
		return -1, nil
	}
	key := [32]byte(h)
	if i, ok := l.index[key]; ok {
		return i, nil
	}
	var tractID string
	var seq int64
	err := l.r.queryRow(ctx, `SELECT tract, seq FROM commits WHERE hash = ?`, h).Scan(&tractID, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	if from := l.fetched[tractID]; seq > from {
		if len(l.rows) == 0 {
			l.grow(int(min(seq-from, 1<<20)))
		}
		if err := l.fetchRange(ctx, tractID, from, seq); err != nil {
			return 0, err
		}
		l.fetched[tractID] = seq
	}
	i, ok := l.index[key]
	if !ok {
		return 0, fmt.Errorf("commit %s vanished while reading tract %s", rowform.Hash(h).Short(), tractID)
	}
	return i, nil
}

// parentOf is find for a parent of row i: in a range read in sequence order
// a first parent is most often the row just before.
func (l *historyLoader) parentOf(ctx context.Context, i int32, p []byte) (int32, error) {
	if i > 0 && bytes.Equal(l.raw[i-1].hash, p) {
		return i - 1, nil
	}
	return l.find(ctx, p)
}

// rowOf is the position of the row with raw hash p, a parent of row i, or
// -1.
func (l *historyLoader) rowOf(i int, p []byte) int {
	if i > 0 && bytes.Equal(l.raw[i-1].hash, p) {
		return i - 1
	}
	if k, ok := l.index[[32]byte(p)]; ok {
		return int(k)
	}
	return -1
}

func (l *historyLoader) grow(n int) {
	l.index = make(map[[32]byte]int32, n)
	l.rows = make([]tract.HistoryCommit, 0, n)
	l.raw = make([]rawHashes, 0, n)
	l.reached = make([]bool, 0, n)
}

// parallelRows is the length of a range from which, outside a transaction,
// History reads it as two halves on two connections at once (SQLite's
// virtual machine, not the disk, bounds a cold compile) when it can run on
// two processors.
const parallelRows = 8192

// rangePart collects the rows of part of a range, in sequence order.
type rangePart struct {
	rows []tract.HistoryCommit
	raw  []rawHashes
}

func (l *historyLoader) fetchRange(ctx context.Context, tractID string, from, to int64) error {
	start := len(l.rows)
	first := &rangePart{rows: l.rows, raw: l.raw}
	if l.r.db != nil && to-from >= parallelRows && runtime.GOMAXPROCS(0) > 1 {
		// A range holds at most one row per sequence number: each half
		// appends into its own stretch of one allocation (no second copy
		// of half the history), and the second slides down over any gap
		// the first leaves.
		mid := from + (to-from)/2
		n1, n := int(mid-from), int(to-from)
		l.rows, l.raw = slices.Grow(l.rows, n), slices.Grow(l.raw, n)
		first = &rangePart{rows: l.rows[start : start : start+n1], raw: l.raw[start : start : start+n1]}
		second := &rangePart{rows: l.rows[start+n1 : start+n1 : start+n], raw: l.raw[start+n1 : start+n1 : start+n]}
		var wg sync.WaitGroup
		var err1, err2 error
		wg.Go(func() { err1 = l.fetchPart(ctx, tractID, from, mid, first) })
		wg.Go(func() { err2 = l.fetchPart(ctx, tractID, mid, to, second) })
		wg.Wait()
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		k1, k2 := len(first.rows), len(second.rows)
		if k1 > n1 || k2 > n-n1 {
			return fmt.Errorf("tract %s: more commits than sequence numbers in %d..%d", tractID, from, to)
		}
		l.rows, l.raw = l.rows[:start+n], l.raw[:start+n]
		copy(l.rows[start+k1:], l.rows[start+n1:start+n1+k2])
		copy(l.raw[start+k1:], l.raw[start+n1:start+n1+k2])
		clear(l.rows[start+k1+k2:])
		clear(l.raw[start+k1+k2:])
		l.rows, l.raw = l.rows[:start+k1+k2], l.raw[:start+k1+k2]
	} else if err := l.fetchPart(ctx, tractID, from, to, first); err != nil {
		return err
	} else {
		l.rows, l.raw = first.rows, first.raw
	}
	for i := start; i < len(l.rows); i++ {
		l.index[[32]byte(l.raw[i].hash)] = int32(i)
		l.reached = append(l.reached, false)
	}
	return nil
}

// fetchPart reads the commits of tractID with sequence numbers in
// (from, to] into p.
func (l *historyLoader) fetchPart(ctx context.Context, tractID string, from, to int64, p *rangePart) error {
	query := `SELECT c.hash, c.content, c.edit_target, c.parents, ` + opCode + `, c.time, nullif(c.message, ''), NULL, NULL, c.meta
		FROM commits c WHERE c.tract = ? AND c.seq > ? AND c.seq <= ?`
	args := []any{tractID, from, to}
	if l.blobs {
		expr, targs := tokensExpr(l.encoding)
		query = `SELECT c.hash, c.content, c.edit_target, c.parents, ` + opCode + `, c.time, nullif(c.message, ''), b.data, ` + expr + `, c.meta
		FROM commits c LEFT JOIN blobs b ON b.id = c.content_id WHERE c.tract = ? AND c.seq > ? AND c.seq <= ?`
		args = append(targs, args...)
	}
	return l.r.eachRow(ctx, query, args, 10, func(v []any) error {
		var raw rawHashes
		raw.hash, _ = v[0].([]byte)
		raw.content, _ = v[1].([]byte)
		raw.target, _ = v[2].([]byte)
		raw.parents, _ = v[3].([]byte)
		if !rawHash(raw.hash) || !(raw.content == nil || rawHash(raw.content)) ||
			!(raw.target == nil || rawHash(raw.target)) || len(raw.parents)%32 != 0 {
			return fmt.Errorf("tract %s: malformed hashes in commits %d..%d", tractID, from, to)
		}
		at, _ := v[5].(int64)
		data, _ := v[7].([]byte)
		hc := tract.HistoryCommit{Commit: tract.Commit{Operation: operationOf(v[4]), Message: asString(v[6]),
			Time: fromNanos(at), Tract: tractID}}
		switch m := v[9].(type) {
		case string:
			hc.Commit.Meta = []byte(m)
		case []byte:
			hc.Commit.Meta = append([]byte(nil), m...)
		}
		if data != nil {
			hc.Blob = tract.Blob{Data: data, Tokens: -1, Encoding: l.encoding}
			if n, ok := v[8].(int64); ok {
				hc.Blob.Tokens = int(n)
			}
		}
		p.rows = append(p.rows, hc)
		p.raw = append(p.raw, raw)
		return nil
	})
}

func rawHash(b []byte) bool { return len(b) == 32 }

// result gives the reached rows their hex hashes and returns them.
func (l *historyLoader) result(reached int) []tract.HistoryCommit {
	// Hex for every hash the reached rows name, except parents that are rows
	// themselves (they share their row's string), in one string.
	size, nParents := 0, 0
	l.eachHash(func([]byte) { size += 64 }, func() { nParents++ })
	buf := make([]byte, size)
	at := 0
	l.eachHash(func(raw []byte) { at += hex.Encode(buf[at:], raw) }, func() {})
	// buf is never written again: the string can share it.
	arena := unsafe.String(unsafe.SliceData(buf), len(buf))
	next := func() tract.Hash {
		h := tract.Hash(arena[:64])
		arena = arena[64:]
		return h
	}
	for i := range l.rows {
		if !l.reached[i] {
			continue
		}
		raw, c := &l.raw[i], &l.rows[i].Commit
		c.Hash = next()
		if raw.content != nil {
			c.Content = next()
		}
		if raw.target != nil {
			c.EditTarget = next()
		}
		if l.rows[i].Blob.Data != nil {
			l.rows[i].Blob.Hash = c.Content
		}
	}
	parents := make([]tract.Hash, nParents)
	for i := range l.rows {
		if !l.reached[i] {
			continue
		}
		n := len(l.raw[i].parents) / 32
		c := &l.rows[i].Commit
		c.Parents, parents = parents[:n:n], parents[n:]
		for j, p := 0, l.raw[i].parents; j < n; j, p = j+1, p[32:] {
			if k := l.rowOf(i, p[:32]); k >= 0 {
				c.Parents[j] = l.rows[k].Commit.Hash
			} else {
				c.Parents[j] = next()
			}
		}
	}
	if reached == len(l.rows) {
		return l.rows
	}
	out := l.rows[:0]
	for i := range l.rows {
		if l.reached[i] {
			out = append(out, l.rows[i])
		}
	}
	return out
}

// eachHash calls own with the raw hashes the reached rows need as hex, in
// the order result takes them: each row's own, content and edit target
// hashes, then the parents that are not rows; parent is called once per
// parent.
func (l *historyLoader) eachHash(own func(raw []byte), parent func()) {
	for i := range l.raw {
		if !l.reached[i] {
			continue
		}
		raw := &l.raw[i]
		own(raw.hash)
		if raw.content != nil {
			own(raw.content)
		}
		if raw.target != nil {
			own(raw.target)
		}
	}
	for i := range l.raw {
		if !l.reached[i] {
			continue
		}
		for p := l.raw[i].parents; len(p) >= 32; p = p[32:] {
			parent()
			if l.rowOf(i, p[:32]) < 0 {
				own(p[:32])
			}
		}
	}
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// eachRow runs a query and calls fn with each row's n values (int64,
// float64, string, []byte or nil). Outside a transaction it talks to the
// driver connection directly, skipping database/sql's per-row conversions
// (a cold compile reads every commit of a history).
func (r reader) eachRow(ctx context.Context, query string, args []any, n int, fn func([]any) error) error {
	if r.db == nil {
		return r.eachRowSQL(ctx, query, args, n, fn)
	}
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return r.eachRowSQL(ctx, query, args, n, fn)
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := qc.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, n)
		vals := make([]any, n)
		for {
			if err := rows.Next(dest); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			for i := range dest {
				vals[i] = dest[i]
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
	})
}

func (r reader) eachRowSQL(ctx context.Context, query string, args []any, n int, fn func([]any) error) error {
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// opCode selects the operation as a small integer: one string allocation
// less per row of a bulk read.
const opCode = `CASE c.operation WHEN 'append' THEN 0 WHEN 'edit' THEN 1 WHEN 'merge' THEN 2 ELSE c.operation END`

func operationOf(v any) tract.Operation {
	if n, ok := v.(int64); ok {
		switch n {
		case 0:
			return tract.OpAppend
		case 1:
			return tract.OpEdit
		case 2:
			return tract.OpMerge
		}
	}
	return tract.Operation(asString(v))
}
