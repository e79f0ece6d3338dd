package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

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

// viewPiecesMigration is version 7: a checkpoint's compiled messages in
// pieces (tract.CompiledView.Pieces), a row each, so a compile window reads
// the few it shows; the header keeps their index. Checkpoints are a cache:
// the rows of the old layout go. A piece goes with its checkpoint.
const viewPiecesMigration = `DELETE FROM compiled_views;
	ALTER TABLE compiled_views DROP COLUMN messages, ADD COLUMN piece_index bytea NOT NULL;
	CREATE TABLE compiled_view_pieces (
		viewer text COLLATE "C" NOT NULL,
		encoding text COLLATE "C" NOT NULL,
		piece integer NOT NULL,
		data bytea NOT NULL,
		PRIMARY KEY (viewer, encoding, piece),
		FOREIGN KEY (viewer, encoding) REFERENCES compiled_views (viewer, encoding) ON DELETE CASCADE
	);`

const viewCols = `viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum, piece_index`

// scanView scans a header and, with data, the data after it.
func scanView(sc interface{ Scan(...any) error }, data bool) (tract.CompiledView, error) {
	var v tract.CompiledView
	var head, sum, messagesSum, dataSum []byte
	var tokens int64
	dest := []any{&v.Viewer, &v.Encoding, &head, &v.AnnSeq, &tokens, &v.Format, &sum, &messagesSum, &dataSum, &v.Index}
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

// header reads a checkpoint's header, with its data when data.
func (r reader) header(ctx context.Context, viewer, encoding string, data bool) (tract.CompiledView, error) {
	query := `SELECT ` + viewCols
	if data {
		query += `, data`
	}
	return scanView(r.q.QueryRow(ctx, query+` FROM compiled_views WHERE viewer = $1 AND encoding = $2`, viewer, encoding), data)
}

func (r reader) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	var v tract.CompiledView
	var err error
	if part == tract.ViewMessages {
		v, err = r.withMessages(ctx, viewer, encoding, false)
	} else {
		v, err = r.header(ctx, viewer, encoding, part == tract.ViewData)
	}
	return v, notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding))
}

// withMessages reads a checkpoint's header (and data) and its messages
// whole: its pieces one after the other. A checkpoint replaced between the
// two reads is read again.
func (r reader) withMessages(ctx context.Context, viewer, encoding string, data bool) (tract.CompiledView, error) {
	return tract.JoinPieces(func() (tract.CompiledView, error) { return r.header(ctx, viewer, encoding, data) }, nil,
		func(sum tract.Hash, from, to int, fn func(int, []byte) error) (int, error) {
			return r.pieces(ctx, viewer, encoding, sum, from, to, fn)
		})
}

// pieces calls fn with the pieces from to to-1 of the checkpoint whose
// sum is sum (see tract.Reader.CompiledViewPieces) and returns how many.
func (r reader) pieces(ctx context.Context, viewer, encoding string, sum tract.Hash, from, to int, fn func(int, []byte) error) (int, error) {
	rows, err := r.q.Query(ctx, `SELECT p.piece, p.data FROM compiled_views v JOIN compiled_view_pieces p ON p.viewer = v.viewer AND p.encoding = v.encoding
		WHERE v.viewer = $1 AND v.encoding = $2 AND v.sum = $3 AND p.piece >= $4 AND p.piece < $5 ORDER BY p.piece`,
		viewer, encoding, rowform.Raw(sum), from, to)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var piece int32
		var data []byte
		if err := rows.Scan(&piece, &data); err != nil {
			return n, err
		}
		n++
		if err := fn(int(piece), data); err != nil {
			return n, err
		}
	}
	return n, rows.Err()
}

func (r reader) CompiledViewPieces(ctx context.Context, viewer, encoding string, sum tract.Hash, from, to int, fn func(piece int, data []byte) error) error {
	n, err := r.pieces(ctx, viewer, encoding, sum, from, to, fn)
	if err == nil && n == 0 {
		err = pgx.ErrNoRows
	}
	return notFound(err, fmt.Sprintf("compiled view of tract %s (%s)", viewer, encoding))
}

func (r reader) ScanCompiledViews(ctx context.Context, fn func(tract.CompiledView) error) error {
	rows, err := r.q.Query(ctx, `SELECT viewer, encoding FROM compiled_views ORDER BY viewer, encoding`)
	if err != nil {
		return err
	}
	var keys [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		v, err := r.withMessages(ctx, k[0], k[1], true)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // removed meanwhile
		}
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) PutCompiledView(ctx context.Context, v tract.CompiledView) error {
	tag, err := t.q.Exec(ctx, `INSERT INTO compiled_views (viewer, encoding, head, ann_seq, tokens, format, sum, messages_sum, data_sum, piece_index, data)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM commits WHERE hash = $3)
		ON CONFLICT (viewer, encoding) DO UPDATE SET head = excluded.head, ann_seq = excluded.ann_seq, tokens = excluded.tokens,
			format = excluded.format, sum = excluded.sum, messages_sum = excluded.messages_sum, data_sum = excluded.data_sum,
			piece_index = excluded.piece_index, data = excluded.data`,
		v.Viewer, v.Encoding, rowform.Raw(v.Head), v.AnnSeq, int64(v.Tokens), v.Format, rowform.Raw(v.Sum), rowform.Raw(v.MessagesSum),
		rowform.Raw(v.DataSum), nonNil(v.Index), nonNil(v.Data))
	if err != nil || tag.RowsAffected() == 0 {
		return err // the head is gone: nothing stored
	}
	if _, err := t.q.Exec(ctx, `DELETE FROM compiled_view_pieces WHERE viewer = $1 AND encoding = $2`, v.Viewer, v.Encoding); err != nil {
		return err
	}
	if len(v.Pieces) == 0 {
		return nil
	}
	nums := make([]int32, len(v.Pieces))
	parts := make([][]byte, len(v.Pieces))
	for i, p := range v.Pieces {
		nums[i], parts[i] = int32(i), nonNil(p)
	}
	_, err = t.q.Exec(ctx, `INSERT INTO compiled_view_pieces (viewer, encoding, piece, data)
		SELECT $1, $2, n, d FROM unnest($3::integer[], $4::bytea[]) AS u(n, d)`, v.Viewer, v.Encoding, nums, parts)
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
