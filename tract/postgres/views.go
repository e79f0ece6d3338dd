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

// viewPartsMigration is version 6: a checkpoint's compiled messages in a
// column of their own, read without the data. Checkpoints are a cache: the
// rows of the old layout go, and the next compile stores new ones.
const viewPartsMigration = `DELETE FROM compiled_views;
	ALTER TABLE compiled_views ADD COLUMN messages_sum bytea NOT NULL, ADD COLUMN messages bytea NOT NULL;`

const viewCols = `viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum`

// scanView scans a header and the parts asked for after it.
func scanView(sc interface{ Scan(...any) error }, messages, data bool) (tract.CompiledView, error) {
	var v tract.CompiledView
	var head, sum, messagesSum, dataSum []byte
	var tokens int64
	dest := []any{&v.Viewer, &v.Encoding, &head, &v.AnnSeq, &tokens, &v.Format, &sum, &messagesSum, &dataSum}
	if messages {
		dest = append(dest, &v.Messages)
	}
	if data {
		dest = append(dest, &v.Data)
	}
	if err := sc.Scan(dest...); err != nil {
		return v, err
	}
	v.Tokens = int(tokens)
	v.Head, v.Sum, v.MessagesSum, v.DataSum = rowform.Hash(head), rowform.Hash(sum), rowform.Hash(messagesSum), rowform.Hash(dataSum)
	return v, nil
}

func (r reader) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	query := `SELECT ` + viewCols
	switch part {
	case tract.ViewMessages:
		query += `, messages`
	case tract.ViewData:
		query += `, data`
	}
	v, err := scanView(r.q.QueryRow(ctx, query+` FROM compiled_views WHERE viewer = $1 AND encoding = $2`, viewer, encoding),
		part == tract.ViewMessages, part == tract.ViewData)
	return v, notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding))
}

func (r reader) ScanCompiledViews(ctx context.Context, fn func(tract.CompiledView) error) error {
	rows, err := r.q.Query(ctx, `SELECT `+viewCols+`, messages, data FROM compiled_views ORDER BY viewer, encoding`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var buf []tract.CompiledView
	for rows.Next() {
		v, err := scanView(rows, true, true)
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
	_, err := t.q.Exec(ctx, `INSERT INTO compiled_views (viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum, messages, data)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM commits WHERE hash = $3)
		ON CONFLICT (viewer, encoding) DO UPDATE SET head = excluded.head, ann_seq = excluded.ann_seq, tokens = excluded.tokens,
			format = excluded.format, sum = excluded.sum, messages_sum = excluded.messages_sum, data_sum = excluded.data_sum,
			messages = excluded.messages, data = excluded.data`,
		v.Viewer, v.Encoding, rowform.Raw(v.Head), v.AnnSeq, int64(v.Tokens), v.Format, rowform.Raw(v.Sum), rowform.Raw(v.MessagesSum),
		rowform.Raw(v.DataSum), nonNil(v.Messages), nonNil(v.Data))
	return err
}

// nonNil is b, or empty bytes for nil (the columns are NOT NULL).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (t *txn) DeleteCompiledView(ctx context.Context, viewer, encoding string) error {
	_, err := t.q.Exec(ctx, `DELETE FROM compiled_views WHERE viewer = $1 AND encoding = $2`, viewer, encoding)
	return err
}
