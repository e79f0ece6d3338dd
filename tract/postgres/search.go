package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/jackc/pgx/v5"
)

// searchMigration adds commit metadata and the full-text index of blobs: a
// tsvector per blob built from its word list (tract.IndexWords) with
// array_to_tsvector, so no text search parser or dictionary stands between
// the words and the index, and the same words match as on SQLite.
const searchMigration = `ALTER TABLE commits ADD COLUMN meta text;
	CREATE TABLE blob_words (
		hash bytea PRIMARY KEY REFERENCES blobs (hash) ON DELETE CASCADE,
		words tsvector NOT NULL
	);
	CREATE INDEX blob_words_words ON blob_words USING gin (words);`

// backfillSearch indexes the blobs stored before searchMigration.
func backfillSearch(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT hash, data FROM blobs`)
	if err != nil {
		return err
	}
	var hashes [][]byte
	var words []string
	for rows.Next() {
		var h, data []byte
		if err := rows.Scan(&h, &data); err != nil {
			rows.Close()
			return err
		}
		hashes, words = append(hashes, h), append(words, strings.Join(tract.IndexWords(data), " "))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return insertWords(ctx, tx, hashes, words)
}

// wordsInsert indexes (hash, space-separated words) pairs not indexed yet.
const wordsInsert = `INSERT INTO blob_words (hash, words)
	SELECT hash, array_to_tsvector(string_to_array(words, ' ')) FROM unnest($1::bytea[], $2::text[]) AS u(hash, words)
	ORDER BY hash ON CONFLICT (hash) DO NOTHING`

func insertWords(ctx context.Context, q querier, hashes [][]byte, words []string) error {
	if len(hashes) == 0 {
		return nil
	}
	if _, err := q.Exec(ctx, wordsInsert, hashes, words); err != nil {
		return fmt.Errorf("index blobs: %w", err)
	}
	return nil
}

// indexBlobs adds the words of blobs not indexed yet.
func (t *txn) indexBlobs(ctx context.Context, blobs []tract.Blob) error {
	hashes, words := make([][]byte, len(blobs)), make([]string, len(blobs))
	for i, b := range blobs {
		hashes[i], words[i] = rowform.Raw(b.Hash), strings.Join(tract.IndexWords(b.Data), " ")
	}
	return insertWords(ctx, t.q, hashes, words)
}

// tsQuery is a tsquery literal requiring every word: literal lexemes are
// taken as they are, like the index's.
func tsQuery(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(w) + "'"
	}
	return strings.Join(q, " & ")
}

func (r reader) Search(ctx context.Context, q tract.SearchQuery) ([]tract.HistoryCommit, error) {
	if q.Commits != nil && len(q.Commits) == 0 {
		return nil, nil
	}
	query := `SELECT ` + commitCols + `, b.data FROM commits c JOIN blobs b ON b.hash = c.content WHERE true`
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if len(q.Words) > 0 {
		query += ` AND c.content IN (SELECT w.hash FROM blob_words w WHERE w.words @@ ` + arg(tsQuery(q.Words)) + `::tsquery)`
	}
	if q.Tract != "" {
		query += ` AND c.tract = ` + arg(q.Tract)
	}
	if q.Type != "" {
		query += ` AND convert_from(b.data, 'UTF8')::jsonb ->> 'type' = ` + arg(string(q.Type))
	}
	if q.Role != "" {
		query += ` AND convert_from(b.data, 'UTF8')::jsonb ->> 'role' = ` + arg(q.Role)
	}
	if q.HasMeta {
		query += ` AND c.meta IS NOT NULL`
	}
	if q.Commits != nil {
		keys := make([][]byte, len(q.Commits))
		for i, h := range q.Commits {
			keys[i] = rowform.Raw(h)
		}
		query += ` AND c.hash = ANY(` + arg(keys) + `)`
	}
	if q.Limit > 0 {
		query += ` ORDER BY c.time, c.hash LIMIT ` + arg(q.Limit)
	}
	rows, err := r.q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.HistoryCommit
	for rows.Next() {
		var hc tract.HistoryCommit
		if hc.Commit, err = scanCommitWith(rows, &hc.Blob.Data); err != nil {
			return nil, err
		}
		hc.Blob.Hash, hc.Blob.Tokens = hc.Commit.Content, -1
		out = append(out, hc)
	}
	slices.SortFunc(out, func(a, b tract.HistoryCommit) int {
		return strings.Compare(string(a.Commit.Hash), string(b.Commit.Hash))
	})
	return out, rows.Err()
}
