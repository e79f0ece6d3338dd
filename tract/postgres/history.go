package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

func binary64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func binary32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }

// operationOf maps a stored operation to its constant without allocating.
func operationOf(b []byte) tract.Operation {
	switch string(b) {
	case "append":
		return tract.OpAppend
	case "edit":
		return tract.OpEdit
	case "merge":
		return tract.OpMerge
	}
	return tract.Operation(b)
}

// tokensExpr is the SQL expression of blob b's count in encoding (its
// dedicated column, else its key in the JSON object blobs.tokens), with its
// arguments numbered from n.
func tokensExpr(encoding string, n int) (string, []any) {
	if col, ok := rowform.TokenColumn(encoding); ok {
		return "b." + col, nil
	}
	if encoding == "" {
		return "NULL::integer", nil
	}
	return "(b.tokens ->> $" + strconv.Itoa(n) + ")::integer", []any{encoding}
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
	return rowform.Commits(hist), err
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
	err := l.r.q.QueryRow(ctx, `SELECT tract, seq FROM commits WHERE hash = $1`, rowform.Raw(h)).Scan(&tractID, &seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if from := l.fetched[tractID]; seq > from {
		if err := l.fetch(ctx, tractID, `c.tract = $1 AND c.seq > $2 AND c.seq <= $3`, tractID, from, seq); err != nil {
			return nil, err
		}
		l.fetched[tractID] = seq
	}
	if row, ok := l.rows[h]; ok {
		return row, nil
	}
	// A concurrent writer committed h after its range was read (sequence
	// numbers are taken before commit): read it on its own.
	if err := l.fetch(ctx, tractID, `c.hash = $1`, rowform.Raw(h)); err != nil {
		return nil, err
	}
	row, ok := l.rows[h]
	if !ok {
		return nil, fmt.Errorf("commit %s vanished while reading tract %s", h.Short(), tractID)
	}
	return row, nil
}

// fetch reads the commits of tractID that where selects.
func (l *historyLoader) fetch(ctx context.Context, tractID, where string, args ...any) error {
	query := `SELECT c.hash, c.content, c.operation, c.edit_target, c.time, c.message, c.parents, NULL::bytea, NULL::integer, c.meta
		FROM commits c WHERE ` + where
	if l.blobs {
		expr, targs := tokensExpr(l.encoding, len(args)+1)
		query = `SELECT c.hash, c.content, c.operation, c.edit_target, c.time, c.message, c.parents, b.data, ` + expr + `, c.meta
		FROM commits c LEFT JOIN blobs b ON b.hash = c.content WHERE ` + where
		args = append(args, targs...)
	}
	rows, err := l.r.q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	binary := true
	for _, fd := range rows.FieldDescriptions() {
		binary = binary && (fd.Format == pgx.BinaryFormatCode || fd.DataTypeOID == pgtype.TextOID || fd.DataTypeOID == pgtype.ByteaOID)
	}
	if !binary {
		return fmt.Errorf("history: unexpected text result format")
	}
	var slab []historyRow
	var dataSlab []byte
	for rows.Next() {
		// Raw values skip the driver's per-column scan plans: a cold
		// compile reads every commit of a history.
		v := rows.RawValues()
		h := rowform.Hash(v[0])
		if _, dup := l.rows[h]; dup {
			continue
		}
		if len(slab) == 0 {
			slab = make([]historyRow, 256)
		}
		row := &slab[0]
		slab = slab[1:]
		c := &row.Commit
		c.Hash, c.Content, c.EditTarget, c.Tract = h, rowform.Hash(v[1]), rowform.Hash(v[3]), tractID
		c.Time = fromNanos(int64(binary64(v[4])))
		c.Operation, c.Message = operationOf(v[2]), string(v[5])
		c.Parents = rowform.Unpack(v[6])
		if v[9] != nil {
			c.Meta = append([]byte(nil), v[9]...)
		}
		if v[7] != nil {
			if len(dataSlab) < len(v[7]) {
				dataSlab = make([]byte, max(64<<10, len(v[7])))
			}
			data := dataSlab[:len(v[7]):len(v[7])]
			dataSlab = dataSlab[len(v[7]):]
			copy(data, v[7])
			row.Blob = tract.Blob{Hash: c.Content, Data: data, Tokens: -1, Encoding: l.encoding}
			if len(v[8]) == 4 {
				row.Blob.Tokens = int(int32(binary32(v[8])))
			}
		}
		l.rows[h] = row
		l.order = append(l.order, row)
	}
	return rows.Err()
}

// walkQuery follows the steps ($2) from commit $1 in one statement,
// reading only each commit's pointers, one index lookup a step: a step to
// a pointer that is missing (NULL, a root's empty parents) or names no
// stored commit finds no row and ends the walk.
const walkQuery = `WITH RECURSIVE walk(i, h, gen, depth, jump, fp) AS (
		SELECT 0, hash, gen, depth, jump, substring(parents FROM 1 FOR 32) FROM commits WHERE hash = $1
		UNION ALL
		SELECT w.i + 1, c.hash, c.gen, c.depth, c.jump, substring(c.parents FROM 1 FOR 32)
		FROM walk w JOIN commits c ON c.hash = CASE WHEN substr($2::text, w.i + 1, 1) = 'j' THEN w.jump ELSE w.fp END
		WHERE w.i < length($2::text)
	)
	SELECT i, h, gen, depth, jump FROM walk ORDER BY i DESC LIMIT 1`

// WalkPointers follows a commit's first-parent and skip pointers
// (tract.PointerWalker) in one round trip.
func (r reader) WalkPointers(ctx context.Context, from tract.Hash, steps string) (tract.Hash, tract.Position, int, error) {
	var (
		taken int
		hash  []byte
		pos   storedPosition
	)
	err := r.q.QueryRow(ctx, walkQuery, rowform.Raw(from), steps).Scan(&taken, &hash, &pos.gen, &pos.depth, &pos.jump)
	if err != nil {
		return "", tract.Position{}, 0, notFound(err, "commit "+from.Short())
	}
	return rowform.Hash(hash), pos.position(), taken, nil
}

var _ tract.PointerWalker = (*Store)(nil)
