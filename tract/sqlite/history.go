package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
)

// tokensPath is the JSON path of an encoding's count in blobs.tokens; NULL
// (no count) for the empty encoding.
func tokensPath(encoding string) any {
	if encoding == "" {
		return nil
	}
	return `$."` + encoding + `"`
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
	// names interns hex hashes: a parent read after its child's range
	// reuses the string.
	names map[[32]byte]tract.Hash
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
		fetched: map[string]int64{}, names: map[[32]byte]tract.Hash{}}
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
	query := `SELECT c.hash, c.content, c.operation, c.edit_target, c.time, c.message, c.parents, NULL, NULL
		FROM commits c WHERE c.tract = ? AND c.seq > ? AND c.seq <= ?`
	args := []any{tractID, from, to}
	if l.blobs {
		query = `SELECT c.hash, c.content, c.operation, c.edit_target, c.time, c.message, c.parents, b.data, b.tokens ->> ?
		FROM commits c LEFT JOIN blobs b ON b.id = c.content_id WHERE c.tract = ? AND c.seq > ? AND c.seq <= ?`
		args = append([]any{tokensPath(l.encoding)}, args...)
	}
	rows, err := l.r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			hash, content, target, parents, data []byte
			at                                   int64
			tokens                               sql.NullInt64
		)
		row := &historyRow{}
		c := &row.Commit
		if err := rows.Scan(&hash, &content, &c.Operation, &target, &at, &c.Message, &parents, &data, &tokens); err != nil {
			return err
		}
		c.Hash, c.Content, c.EditTarget, c.Time, c.Tract = l.name(hash), hs(content), l.name(target), fromNanos(at), tractID
		c.Parents = make([]tract.Hash, 0, len(parents)/32)
		for len(parents) >= 32 {
			c.Parents = append(c.Parents, l.name(parents[:32]))
			parents = parents[32:]
		}
		if data != nil {
			row.Blob = tract.Blob{Hash: c.Content, Data: data, Tokens: -1, Encoding: l.encoding}
			if tokens.Valid {
				row.Blob.Tokens = int(tokens.Int64)
			}
		}
		l.rows[c.Hash] = row
		l.order = append(l.order, row)
	}
	return rows.Err()
}

// name returns the hex form of a stored hash, interned.
func (l *historyLoader) name(b []byte) tract.Hash {
	if len(b) != 32 {
		return hs(b)
	}
	k := [32]byte(b)
	if h, ok := l.names[k]; ok {
		return h
	}
	h := hs(b)
	l.names[k] = h
	return h
}
