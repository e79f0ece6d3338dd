package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

// viewsMigration is version 5: compile checkpoints (tract.CompiledView), one
// row per viewer tract and encoding (the data is the last column, so a read
// of the header, what status needs, never touches its overflow pages), and
// an index of each tract's commits in time order (find -n on a common word
// walks it and stops at the limit).
const viewsMigration = `CREATE TABLE compiled_views (
		viewer TEXT NOT NULL,
		encoding TEXT NOT NULL,
		head BLOB NOT NULL,
		ann_seq INTEGER NOT NULL,
		tokens INTEGER NOT NULL,
		format INTEGER NOT NULL,
		sum BLOB NOT NULL,
		data_sum BLOB NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (viewer, encoding)
	);
	CREATE INDEX compiled_views_head ON compiled_views(head);
	CREATE INDEX commits_tract_time ON commits(tract, time, hash);`

// viewPartsMigration is version 6: a checkpoint's compiled messages in a
// column of their own, before the data, so a compile that prints them reads
// neither the data nor its overflow pages. Checkpoints are a cache: the
// rows of the old layout go, and the next compile stores new ones.
const viewPartsMigration = `DROP TABLE compiled_views;
	CREATE TABLE compiled_views (
		viewer TEXT NOT NULL,
		encoding TEXT NOT NULL,
		head BLOB NOT NULL,
		ann_seq INTEGER NOT NULL,
		tokens INTEGER NOT NULL,
		format INTEGER NOT NULL,
		sum BLOB NOT NULL,
		messages_sum BLOB NOT NULL,
		data_sum BLOB NOT NULL,
		messages BLOB NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (viewer, encoding)
	);
	CREATE INDEX compiled_views_head ON compiled_views(head);`

// viewPiecesMigration is version 8: a checkpoint's compiled messages in
// pieces (tract.CompiledView.Pieces), a row each, so a compile window reads
// the few it shows; the header keeps their index (piece_index, before the
// data). Checkpoints are a cache: the rows of the old layout go. A piece
// goes with its checkpoint (the foreign key's cascade).
const viewPiecesMigration = `DROP TABLE compiled_views;
	CREATE TABLE compiled_views (
		viewer TEXT NOT NULL,
		encoding TEXT NOT NULL,
		head BLOB NOT NULL,
		ann_seq INTEGER NOT NULL,
		tokens INTEGER NOT NULL,
		format INTEGER NOT NULL,
		sum BLOB NOT NULL,
		messages_sum BLOB NOT NULL,
		data_sum BLOB NOT NULL,
		piece_index BLOB NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (viewer, encoding)
	);
	CREATE INDEX compiled_views_head ON compiled_views(head);
	CREATE TABLE compiled_view_pieces (
		viewer TEXT NOT NULL,
		encoding TEXT NOT NULL,
		piece INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (viewer, encoding, piece),
		FOREIGN KEY (viewer, encoding) REFERENCES compiled_views(viewer, encoding) ON DELETE CASCADE
	);`

const viewCols = `viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum, piece_index`

// headerCols is how many columns viewCols names.
const headerCols = 10

// scanView scans a header and, when data is not nil, the data after it.
// The values are taken as the driver gives them, then typed (anyRow): a
// value of another type than lineage writes is damage, where an error of
// the query itself stays what it is.
func scanView(sc interface{ Scan(...any) error }, data *[]byte) (tract.CompiledView, error) {
	n := headerCols
	if data != nil {
		n++
	}
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := sc.Scan(ptrs...); err != nil {
		return tract.CompiledView{}, err
	}
	return viewOf(vals, data)
}

// viewOf types a checkpoint row's values (scanView).
func viewOf(vals anyRow, data *[]byte) (tract.CompiledView, error) {
	var v tract.CompiledView
	var head, sum, messagesSum, dataSum []byte
	dest := []any{&v.Viewer, &v.Encoding, &head, &v.AnnSeq, &v.Tokens, &v.Format, &sum, &messagesSum, &dataSum, &v.Index}
	if data != nil {
		dest = append(dest, data)
	}
	if err := vals.Scan(dest...); err != nil {
		return v, fmt.Errorf("%w: a compile checkpoint row (table compiled_views): %w", tract.ErrDamaged, err)
	}
	v.Head, v.Sum, v.MessagesSum, v.DataSum = rowform.Hash(head), rowform.Hash(sum), rowform.Hash(messagesSum), rowform.Hash(dataSum)
	if data != nil {
		v.Data = *data
	}
	return v, nil
}

// header reads a checkpoint's header, with its data when data.
func (r reader) header(ctx context.Context, viewer, encoding string, data bool) (tract.CompiledView, error) {
	if !data {
		return scanView(r.queryRow(ctx, `SELECT `+viewCols+` FROM compiled_views WHERE viewer = ? AND encoding = ?`, viewer, encoding), nil)
	}
	// The data (megabytes) straight from the driver: no second copy.
	var v tract.CompiledView
	found := false
	err := r.eachRow(ctx, `SELECT `+viewCols+`, data FROM compiled_views WHERE viewer = ? AND encoding = ?`, []any{viewer, encoding}, headerCols+1,
		func(vals []any) error {
			var err error
			v, err = viewOf(vals, new([]byte))
			found = true
			return err
		})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return v, err
}

func (r reader) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	what := fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding)
	if part == tract.ViewMessages {
		v, err := r.withMessages(ctx, viewer, encoding, false, nil)
		return v, damaged(notFound(err, what))
	}
	v, err := r.header(ctx, viewer, encoding, part == tract.ViewData)
	return v, damaged(notFound(err, what))
}

// withMessages reads a checkpoint's header (and data) and its messages
// whole, appended to buf: its pieces one after the other. A checkpoint
// replaced between the two reads is read again.
func (r reader) withMessages(ctx context.Context, viewer, encoding string, data bool, buf []byte) (tract.CompiledView, error) {
	alloc := func() ([]byte, error) {
		if buf == nil {
			var size sql.NullInt64
			if err := r.queryRow(ctx, `SELECT sum(length(data)) FROM compiled_view_pieces WHERE viewer = ? AND encoding = ?`, viewer, encoding).Scan(&size); err != nil {
				return nil, err
			}
			buf = make([]byte, 0, max(0, min(size.Int64, 1<<30)))
		}
		return buf, nil
	}
	return tract.JoinPieces(func() (tract.CompiledView, error) { return r.header(ctx, viewer, encoding, data) }, alloc,
		func(sum tract.Hash, from, to int, fn func(int, []byte) error) (int, error) {
			return r.pieces(ctx, viewer, encoding, sum, from, to, fn)
		})
}

// pieces lends fn the pieces from to to-1 of the checkpoint whose sum is
// sum (see tract.Reader.CompiledViewPieces) and returns how many it lent.
func (r reader) pieces(ctx context.Context, viewer, encoding string, sum tract.Hash, from, to int, fn func(int, []byte) error) (int, error) {
	var fnErr error
	n, err := r.lend(ctx, `SELECT `+lendFunc+`(?, p.piece, p.data) FROM compiled_views v JOIN compiled_view_pieces p ON p.viewer = v.viewer AND p.encoding = v.encoding
		WHERE v.viewer = ? AND v.encoding = ? AND v.sum = ? AND p.piece >= ? AND p.piece < ? ORDER BY p.piece`,
		[]any{viewer, encoding, rowform.Raw(sum), from, to},
		func(vals []any) error {
			piece, ok := vals[0].(int64)
			var data []byte
			switch x := vals[1].(type) {
			case []byte:
				data = x
			case string:
				data = []byte(x)
			default:
				ok = false
			}
			if !ok {
				fnErr = fmt.Errorf("%w: a piece of compile checkpoint %s (%s) (table compiled_view_pieces): %T, %T", tract.ErrDamaged, viewer, encoding, vals[0], vals[1])
				return fnErr
			}
			fnErr = fn(int(piece), data)
			return fnErr
		})
	if fnErr != nil {
		return n, fnErr
	}
	return n, err
}

func (r reader) CompiledViewPieces(ctx context.Context, viewer, encoding string, sum tract.Hash, from, to int, fn func(piece int, data []byte) error) error {
	n, err := r.pieces(ctx, viewer, encoding, sum, from, to, fn)
	if err == nil && n == 0 {
		err = sql.ErrNoRows
	}
	return damaged(notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding)))
}

// lendBuf is the buffer the last lending gathered its pieces in, kept for
// the next one (a server lends the same checkpoint again and again).
var lendBuf struct {
	sync.Mutex
	b []byte
}

// maxLendBuf bounds the buffer kept.
const maxLendBuf = 64 << 20

// LendCompiledView is CompiledView(ViewMessages) with the messages part
// lent (tract.ViewLender): its pieces, lent by SQLite one by one, gathered
// in a buffer kept for the next lending.
func (r reader) LendCompiledView(ctx context.Context, viewer, encoding string, fn func(tract.CompiledView) error) error {
	lendBuf.Lock()
	buf := lendBuf.b
	lendBuf.b = nil
	lendBuf.Unlock()
	v, err := r.withMessages(ctx, viewer, encoding, false, buf)
	if err != nil {
		return damaged(notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding)))
	}
	defer func() {
		if cap(v.Messages) <= maxLendBuf {
			lendBuf.Lock()
			if cap(v.Messages) > cap(lendBuf.b) {
				lendBuf.b = v.Messages[:0]
			}
			lendBuf.Unlock()
		}
	}()
	return fn(v)
}

// anyRow scans the values eachRow gives as a row.
type anyRow []any

func (a anyRow) Scan(dest ...any) error {
	if len(dest) != len(a) {
		return fmt.Errorf("scan %d values into %d", len(a), len(dest))
	}
	for i, d := range dest {
		switch d := d.(type) {
		case *string:
			switch x := a[i].(type) {
			case string:
				*d = x
			case []byte:
				*d = string(x)
			default:
				return fmt.Errorf("column %d: %T is not text", i, a[i])
			}
		case *int64:
			n, ok := a[i].(int64)
			if !ok {
				return fmt.Errorf("column %d: %T is not an integer", i, a[i])
			}
			*d = n
		case *int:
			n, ok := a[i].(int64)
			if !ok {
				return fmt.Errorf("column %d: %T is not an integer", i, a[i])
			}
			*d = int(n)
		case *[]byte:
			switch x := a[i].(type) {
			case []byte:
				*d = x
			case string:
				*d = []byte(x)
			default:
				return fmt.Errorf("column %d: %T is not a blob", i, a[i])
			}
		default:
			return fmt.Errorf("column %d: cannot scan into %T", i, d)
		}
	}
	return nil
}

func (r reader) ScanCompiledViews(ctx context.Context, fn func(tract.CompiledView) error) error {
	rows, err := r.q.QueryContext(ctx, `SELECT viewer, encoding FROM compiled_views ORDER BY viewer, encoding`)
	if err != nil {
		return damaged(err)
	}
	var keys [][2]string
	for rows.Next() {
		var k [2]any
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return damaged(err)
		}
		var key [2]string
		if err := (anyRow(k[:])).Scan(&key[0], &key[1]); err != nil {
			rows.Close()
			return fmt.Errorf("%w: a compile checkpoint row (table compiled_views): %w", tract.ErrDamaged, err)
		}
		keys = append(keys, key)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return damaged(err)
	}
	for _, k := range keys {
		v, err := r.withMessages(ctx, k[0], k[1], true, nil)
		if errors.Is(err, sql.ErrNoRows) {
			continue // removed meanwhile
		}
		if err != nil {
			return damaged(err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) PutCompiledView(ctx context.Context, v tract.CompiledView) error {
	res, err := t.q.ExecContext(ctx, `INSERT INTO compiled_views (viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum, piece_index, data)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM commits WHERE hash = ?)
		ON CONFLICT (viewer, encoding) DO UPDATE SET head = excluded.head, ann_seq = excluded.ann_seq, tokens = excluded.tokens,
			format = excluded.format, sum = excluded.sum, messages_sum = excluded.messages_sum, data_sum = excluded.data_sum,
			piece_index = excluded.piece_index, data = excluded.data`,
		v.Viewer, v.Encoding, rowform.Raw(v.Head), v.AnnSeq, v.Tokens, v.Format, rowform.Raw(v.Sum), rowform.Raw(v.MessagesSum),
		rowform.Raw(v.DataSum), nonNil(v.Index), nonNil(v.Data), rowform.Raw(v.Head))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err // the head is gone: nothing stored
	}
	if _, err := t.q.ExecContext(ctx, `DELETE FROM compiled_view_pieces WHERE viewer = ? AND encoding = ?`, v.Viewer, v.Encoding); err != nil {
		return err
	}
	for i, p := range v.Pieces {
		if _, err := t.q.ExecContext(ctx, `INSERT INTO compiled_view_pieces (viewer, encoding, piece, data) VALUES (?, ?, ?, ?)`,
			v.Viewer, v.Encoding, i, nonNil(p)); err != nil {
			return err
		}
	}
	return nil
}

// nonNil is b, or an empty blob for nil (the columns are NOT NULL).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (t *txn) DeleteCompiledView(ctx context.Context, viewer, encoding string) error {
	_, err := t.q.ExecContext(ctx, `DELETE FROM compiled_views WHERE viewer = ? AND encoding = ?`, viewer, encoding)
	return err
}

var _ tract.ViewLender = (*Store)(nil)
