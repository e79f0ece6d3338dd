package postgres

import (
	"context"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

// viewsMigration is version 5: compile checkpoints (tract.CompiledView),
// one row per viewer tract and encoding, and an index of each tract's
// commits in time order (find -n stops at the limit).
const viewsMigration = `CREATE TABLE compiled_views (
		viewer text COLLATE "C" NOT NULL,
		encoding text COLLATE "C" NOT NULL,
		head bytea NOT NULL,
		ann_seq bigint NOT NULL,
		tokens bigint NOT NULL,
		format integer NOT NULL,
		sum bytea NOT NULL,
		data_sum bytea NOT NULL,
		data bytea NOT NULL,
		PRIMARY KEY (viewer, encoding)
	);
	CREATE INDEX compiled_views_head ON compiled_views (head);
	CREATE INDEX commits_tract_time ON commits (tract, time, hash);`

const viewCols = `viewer, encoding, head, ann_seq, tokens, format, sum, data_sum`

func scanView(sc interface{ Scan(...any) error }, withData bool) (tract.CompiledView, error) {
	var v tract.CompiledView
	var head, sum, dataSum []byte
	var tokens int64
	dest := []any{&v.Viewer, &v.Encoding, &head, &v.AnnSeq, &tokens, &v.Format, &sum, &dataSum}
	if withData {
		dest = append(dest, &v.Data)
	}
	if err := sc.Scan(dest...); err != nil {
		return v, err
	}
	v.Tokens = int(tokens)
	v.Head, v.Sum, v.DataSum = rowform.Hash(head), rowform.Hash(sum), rowform.Hash(dataSum)
	return v, nil
}

func (r reader) CompiledView(ctx context.Context, viewer, encoding string, withData bool) (tract.CompiledView, error) {
	query := `SELECT ` + viewCols
	if withData {
		query += `, data`
	}
	v, err := scanView(r.q.QueryRow(ctx, query+` FROM compiled_views WHERE viewer = $1 AND encoding = $2`, viewer, encoding), withData)
	return v, notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding))
}

func (r reader) ScanCompiledViews(ctx context.Context, fn func(tract.CompiledView) error) error {
	rows, err := r.q.Query(ctx, `SELECT `+viewCols+`, data FROM compiled_views ORDER BY viewer, encoding`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var buf []tract.CompiledView
	for rows.Next() {
		v, err := scanView(rows, true)
		if err != nil {
			return err
		}
		buf = append(buf, v)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, v := range buf {
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) PutCompiledView(ctx context.Context, v tract.CompiledView) error {
	_, err := t.q.Exec(ctx, `INSERT INTO compiled_views (viewer, encoding, head, ann_seq, tokens, format, sum, data_sum, data)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT 1 FROM commits WHERE hash = $3)
		ON CONFLICT (viewer, encoding) DO UPDATE SET head = excluded.head, ann_seq = excluded.ann_seq, tokens = excluded.tokens,
			format = excluded.format, sum = excluded.sum, data_sum = excluded.data_sum, data = excluded.data`,
		v.Viewer, v.Encoding, rowform.Raw(v.Head), v.AnnSeq, int64(v.Tokens), v.Format, rowform.Raw(v.Sum), rowform.Raw(v.DataSum), v.Data)
	return err
}

func (t *txn) DeleteCompiledView(ctx context.Context, viewer, encoding string) error {
	_, err := t.q.Exec(ctx, `DELETE FROM compiled_views WHERE viewer = $1 AND encoding = $2`, viewer, encoding)
	return err
}
