package sqlite

import (
	"context"
	"database/sql"
	"fmt"

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

const viewCols = `viewer, encoding, head, ann_seq, tokens, format, sum, data_sum`

func scanView(sc interface{ Scan(...any) error }, data *[]byte) (tract.CompiledView, error) {
	var v tract.CompiledView
	var head, sum, dataSum []byte
	dest := []any{&v.Viewer, &v.Encoding, &head, &v.AnnSeq, &v.Tokens, &v.Format, &sum, &dataSum}
	if data != nil {
		dest = append(dest, data)
	}
	if err := sc.Scan(dest...); err != nil {
		return v, err
	}
	v.Head, v.Sum, v.DataSum = rowform.Hash(head), rowform.Hash(sum), rowform.Hash(dataSum)
	if data != nil {
		v.Data = *data
	}
	return v, nil
}

func (r reader) CompiledView(ctx context.Context, viewer, encoding string, withData bool) (tract.CompiledView, error) {
	what := fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding)
	if !withData {
		v, err := scanView(r.queryRow(ctx, `SELECT `+viewCols+` FROM compiled_views WHERE viewer = ? AND encoding = ?`, viewer, encoding), nil)
		return v, damaged(notFound(err, what))
	}
	// The data (megabytes) straight from the driver: no second copy.
	var v tract.CompiledView
	found := false
	err := r.eachRow(ctx, `SELECT `+viewCols+`, data FROM compiled_views WHERE viewer = ? AND encoding = ?`, []any{viewer, encoding}, 9,
		func(vals []any) error {
			var err error
			v, err = scanView(anyRow(vals), new([]byte))
			found = true
			return err
		})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return v, damaged(notFound(err, what))
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
			*d = asString(a[i])
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
	rows, err := r.q.QueryContext(ctx, `SELECT `+viewCols+`, data FROM compiled_views ORDER BY viewer, encoding`)
	if err != nil {
		return damaged(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		v, err := scanView(rows, &data)
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
	_, err := t.q.ExecContext(ctx, `INSERT INTO compiled_views (viewer, encoding, head, ann_seq, tokens, format, sum, data_sum, data)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM commits WHERE hash = ?)
		ON CONFLICT (viewer, encoding) DO UPDATE SET head = excluded.head, ann_seq = excluded.ann_seq, tokens = excluded.tokens,
			format = excluded.format, sum = excluded.sum, data_sum = excluded.data_sum, data = excluded.data`,
		v.Viewer, v.Encoding, rowform.Raw(v.Head), v.AnnSeq, v.Tokens, v.Format, rowform.Raw(v.Sum), rowform.Raw(v.DataSum), v.Data,
		rowform.Raw(v.Head))
	return err
}

func (t *txn) DeleteCompiledView(ctx context.Context, viewer, encoding string) error {
	_, err := t.q.ExecContext(ctx, `DELETE FROM compiled_views WHERE viewer = ? AND encoding = ?`, viewer, encoding)
	return err
}
