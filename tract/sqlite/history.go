package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/agentlineage/lineage/tract"
)

// Token counts of the two encodings internal/tokens knows have their own
// columns (a compile reads one per commit); any other encoding goes into the
// JSON object in blobs.tokens.
var tokenColumns = map[string]string{"o200k_base": "tokens_o200k", "cl100k_base": "tokens_cl100k"}

// tokensExpr is the SQL expression of blob b's count in encoding, with its
// arguments.
func tokensExpr(encoding string) (string, []any) {
	if col, ok := tokenColumns[encoding]; ok {
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
type historyLoader struct {
	r        reader
	encoding string
	blobs    bool
	rows     map[tract.Hash]*historyRow
	order    []*historyRow // in the order read
	fetched  map[string]int64
	slab     []historyRow // rows are allocated in batches
}

type historyRow struct {
	tract.HistoryCommit
	reached bool
}

func (r reader) History(ctx context.Context, heads []tract.Hash, encoding string) ([]tract.HistoryCommit, error) {
	return r.history(ctx, heads, encoding, true)
}

func (r reader) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	hist, err := r.history(ctx, heads, "", false)
	if err != nil {
		return nil, err
	}
	out := make([]tract.Commit, len(hist))
	for i := range hist {
		out[i] = hist[i].Commit
	}
	return out, nil
}

func (r reader) history(ctx context.Context, heads []tract.Hash, encoding string, blobs bool) ([]tract.HistoryCommit, error) {
	l := &historyLoader{r: r, encoding: encoding, blobs: blobs, rows: map[tract.Hash]*historyRow{},
		fetched: map[string]int64{}}
	stack := append([]tract.Hash(nil), heads...)
	reached := 0
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		row, ok := l.rows[h]
		if !ok {
			var err error
			if row, err = l.load(ctx, h); err != nil {
				return nil, err
			}
			if row == nil {
				continue // a missing commit is not part of any history
			}
		}
		if row.reached {
			continue
		}
		row.reached = true
		reached++
		stack = append(stack, row.Commit.Parents...)
	}
	out := make([]tract.HistoryCommit, 0, reached)
	for _, row := range l.order {
		if row.reached {
			out = append(out, row.HistoryCommit)
		}
	}
	return out, nil
}

// load reads the range of h's tract up to h and returns h's row (nil when
// h is not stored).
func (l *historyLoader) load(ctx context.Context, h tract.Hash) (*historyRow, error) {
	var tractID string
	var seq int64
	err := l.r.q.QueryRowContext(ctx, `SELECT tract, seq FROM commits WHERE hash = ?`, hb(h)).Scan(&tractID, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if from := l.fetched[tractID]; seq > from {
		if len(l.rows) == 0 {
			n := int(min(seq-from, 1<<20))
			l.rows = make(map[tract.Hash]*historyRow, n)
			l.order = make([]*historyRow, 0, n)
		}
		if err := l.fetchRange(ctx, tractID, from, seq); err != nil {
			return nil, err
		}
		l.fetched[tractID] = seq
	}
	row, ok := l.rows[h]
	if !ok {
		return nil, fmt.Errorf("commit %s vanished while reading tract %s", h.Short(), tractID)
	}
	return row, nil
}

func (l *historyLoader) fetchRange(ctx context.Context, tractID string, from, to int64) error {
	query := `SELECT c.hash, c.content, ` + opCode + `, c.edit_target, c.time, c.message, c.parents, NULL, NULL
		FROM commits c WHERE c.tract = ? AND c.seq > ? AND c.seq <= ?`
	args := []any{tractID, from, to}
	if l.blobs {
		expr, targs := tokensExpr(l.encoding)
		query = `SELECT c.hash, c.content, ` + opCode + `, c.edit_target, c.time, c.message, c.parents, b.data, ` + expr + `
		FROM commits c LEFT JOIN blobs b ON b.id = c.content_id WHERE c.tract = ? AND c.seq > ? AND c.seq <= ?`
		args = append(targs, args...)
	}
	return l.r.eachRow(ctx, query, args, 9, func(v []any) error {
		hash, _ := v[0].([]byte)
		content, _ := v[1].([]byte)
		target, _ := v[3].([]byte)
		parents, _ := v[6].([]byte)
		data, _ := v[7].([]byte)
		at, _ := v[4].(int64)
		if len(l.slab) == 0 {
			l.slab = make([]historyRow, 256)
		}
		row := &l.slab[0]
		l.slab = l.slab[1:]
		c := &row.Commit
		c.Operation = operationOf(v[2])
		c.Message = asString(v[5])
		c.Hash, c.Content, c.EditTarget, c.Time, c.Tract = hs(hash), hs(content), hs(target), fromNanos(at), tractID
		c.Parents = unpackHashes(parents)
		if data != nil {
			row.Blob = tract.Blob{Hash: c.Content, Data: data, Tokens: -1, Encoding: l.encoding}
			if n, ok := v[8].(int64); ok {
				row.Blob.Tokens = int(n)
			}
		}
		l.rows[c.Hash] = row
		l.order = append(l.order, row)
		return nil
	})
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
