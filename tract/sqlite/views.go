package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

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

const viewCols = `viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum`

// scanView scans a header and, for each non-nil part, that column after
// it. The values are taken as the driver gives them, then typed (anyRow):
// a value of another type than lineage writes is damage, where an error of
// the query itself stays what it is.
func scanView(sc interface{ Scan(...any) error }, messages, data *[]byte) (tract.CompiledView, error) {
	n := 9
	for _, part := range []*[]byte{messages, data} {
		if part != nil {
			n++
		}
	}
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := sc.Scan(ptrs...); err != nil {
		return tract.CompiledView{}, err
	}
	return viewOf(vals, messages, data)
}

// viewOf types a checkpoint row's values (scanView).
func viewOf(vals anyRow, messages, data *[]byte) (tract.CompiledView, error) {
	var v tract.CompiledView
	var head, sum, messagesSum, dataSum []byte
	dest := []any{&v.Viewer, &v.Encoding, &head, &v.AnnSeq, &v.Tokens, &v.Format, &sum, &messagesSum, &dataSum}
	for _, part := range []*[]byte{messages, data} {
		if part != nil {
			dest = append(dest, part)
		}
	}
	if err := vals.Scan(dest...); err != nil {
		return v, fmt.Errorf("%w: a compile checkpoint row (table compiled_views): %w", tract.ErrDamaged, err)
	}
	v.Head, v.Sum, v.MessagesSum, v.DataSum = rowform.Hash(head), rowform.Hash(sum), rowform.Hash(messagesSum), rowform.Hash(dataSum)
	if messages != nil {
		v.Messages = *messages
	}
	if data != nil {
		v.Data = *data
	}
	return v, nil
}

func (r reader) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	what := fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding)
	var col string
	var messages, data *[]byte
	switch part {
	case tract.ViewMessages:
		col, messages = "messages", new([]byte)
	case tract.ViewData:
		col, data = "data", new([]byte)
	default:
		v, err := scanView(r.queryRow(ctx, `SELECT `+viewCols+` FROM compiled_views WHERE viewer = ? AND encoding = ?`, viewer, encoding), nil, nil)
		return v, damaged(notFound(err, what))
	}
	// The part (megabytes) straight from the driver: no second copy.
	var v tract.CompiledView
	found := false
	err := r.eachRow(ctx, `SELECT `+viewCols+`, `+col+` FROM compiled_views WHERE viewer = ? AND encoding = ?`, []any{viewer, encoding}, 10,
		func(vals []any) error {
			var err error
			v, err = viewOf(vals, messages, data)
			found = true
			return err
		})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return v, damaged(notFound(err, what))
}

// LendCompiledView is CompiledView(ViewMessages) with the messages part
// lent (tract.ViewLender): fn sees the bytes SQLite read, never copied.
func (r reader) LendCompiledView(ctx context.Context, viewer, encoding string, fn func(tract.CompiledView) error) error {
	var fnErr error
	n, err := r.lend(ctx, `SELECT `+lendFunc+`(?, `+viewCols+`, messages) FROM compiled_views WHERE viewer = ? AND encoding = ?`, []any{viewer, encoding},
		func(vals []any) error {
			for i, v := range vals {
				if s, ok := v.(string); ok {
					vals[i] = strings.Clone(s) // lent too
				}
			}
			var messages []byte
			v, err := viewOf(vals, &messages, nil)
			if err != nil {
				return err
			}
			fnErr = fn(v)
			return fnErr
		})
	if fnErr != nil {
		return fnErr
	}
	if err == nil && n == 0 {
		err = sql.ErrNoRows
	}
	return damaged(notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding)))
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
	rows, err := r.q.QueryContext(ctx, `SELECT `+viewCols+`, messages, data FROM compiled_views ORDER BY viewer, encoding`)
	if err != nil {
		return damaged(err)
	}
	defer rows.Close()
	for rows.Next() {
		var messages, data []byte
		v, err := scanView(rows, &messages, &data)
		if err != nil {
			return damaged(err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return damaged(rows.Err())
}

func (t *txn) PutCompiledView(ctx context.Context, v tract.CompiledView) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO compiled_views (viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum, messages, data)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM commits WHERE hash = ?)
		ON CONFLICT (viewer, encoding) DO UPDATE SET head = excluded.head, ann_seq = excluded.ann_seq, tokens = excluded.tokens,
			format = excluded.format, sum = excluded.sum, messages_sum = excluded.messages_sum, data_sum = excluded.data_sum,
			messages = excluded.messages, data = excluded.data`,
		v.Viewer, v.Encoding, rowform.Raw(v.Head), v.AnnSeq, v.Tokens, v.Format, rowform.Raw(v.Sum), rowform.Raw(v.MessagesSum),
		rowform.Raw(v.DataSum), nonNil(v.Messages), nonNil(v.Data), rowform.Raw(v.Head))
	return err
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
