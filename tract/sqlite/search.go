package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/go-json-experiment/json"
)

// searchMigration adds commit metadata and the full-text index of blobs:
// an FTS5 table whose rowid is the blob's id and whose one column holds the
// blob's words (tract.IndexWords) separated by spaces. The ascii tokenizer
// splits on ASCII non-alphanumerics only, so it yields exactly those words.
// The index keeps no copy of the words (an empty content option, with
// contentless_delete so GC can drop a blob's row) and no positions
// (detail = none): find asks only "does every word occur", never a phrase,
// and both cut the index's writes on import (~7% faster at 100k messages).
const searchMigration = `ALTER TABLE commits ADD COLUMN meta TEXT;
	CREATE VIRTUAL TABLE blob_words USING fts5(words, tokenize = 'ascii', content = '', contentless_delete = 1, detail = none);`

// backfillSearch indexes the blobs stored before searchMigration.
func backfillSearch(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, data FROM blobs`)
	if err != nil {
		return err
	}
	var ids []int64
	var words []string
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			rows.Close()
			return err
		}
		ids, words = append(ids, id), append(words, strings.Join(tract.IndexWords(data), " "))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO blob_words (rowid, words) VALUES (?, ?)`, ids[i], words[i]); err != nil {
			return fmt.Errorf("index blob %d: %w", ids[i], err)
		}
	}
	return nil
}

// indexBlobs adds the words of blobs not indexed yet (some were stored
// before); texts are the words blobWords cut for them, a blob listed twice
// taken once. One statement for many blobs: FTS5 writes its pending words
// out at the start of every statement.
func (t *txn) indexBlobs(ctx context.Context, blobs []tract.Blob, texts []string) error {
	seen := make(map[tract.Hash]bool, len(blobs))
	flat := make([]any, 0, 2*len(texts))
	for _, b := range blobs {
		if seen[b.Hash] {
			continue
		}
		seen[b.Hash] = true
		flat = append(flat, rowform.Raw(b.Hash), texts[0])
		texts = texts[1:]
	}
	if _, err := t.insertFlat(ctx, `INSERT INTO blob_words (rowid, words) SELECT b.id, v.column2 FROM (`, "(?, ?)",
		`) AS v JOIN blobs b ON b.hash = v.column1
		WHERE NOT EXISTS (SELECT 1 FROM blob_words WHERE rowid = b.id) AND NOT EXISTS (SELECT 1 FROM unindexed WHERE id = b.id)`, 2, wordRows, flat); err != nil {
		return fmt.Errorf("index blobs: %w", err)
	}
	return nil
}

// wordRows is how many blobs one statement indexes: FTS5 writes its
// pending terms out at the start of every statement, so fewer, larger
// statements make fewer, larger index segments.
const wordRows = 2000

// blobWords cuts the words of blobs (their data): on another goroutine,
// while SQLite stores them, for a write that indexes them at once; only
// when asked (never, unless some were stored already) when lazy, for a
// write whose words wait in the pending list (deferWords), which cuts them
// when it is indexed. wait returns them.
func blobWords(data [][]byte, lazy bool) (wait func() []string) {
	cut := func() []string {
		blobsCut.Add(int64(len(data)))
		texts := make([]string, len(data))
		for i := range texts {
			texts[i] = strings.Join(tract.IndexWords(data[i]), " ")
		}
		return texts
	}
	if lazy {
		return sync.OnceValue(cut)
	}
	var texts []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		texts = cut()
	}()
	return func() []string {
		<-done
		return texts
	}
}

// blobsCut counts the blobs whose words blobWords cut (for the tests).
var blobsCut atomic.Int64

// indexNewBlobs adds the words (texts cuts them) of the blobs PutBlobs has just
// inserted, with ids first, first+1, … and data data: their ids are new, so
// none is indexed yet (DeleteUnusedBlobs drops a deleted blob's words with
// it). A small write leaves them pending (deferWords; pend is the pending
// list it read before it stored them).
func (t *txn) indexNewBlobs(ctx context.Context, first int64, data [][]byte, texts func() []string, pend pendingSize) error {
	if smallWrite(t.bulk, len(data)) {
		return t.deferWords(ctx, first, data, texts, pend)
	}
	words := make([]any, 0, 2*len(data))
	for i, text := range texts() {
		words = append(words, first+int64(i), text)
	}
	if _, err := t.insertFlat(ctx, `INSERT INTO blob_words (rowid, words)`, "(?, ?)", "", 2, wordRows, words); err != nil {
		return fmt.Errorf("index blobs: %w", err)
	}
	t.indexed += len(data)
	return nil
}

// smallWrite says a write of n new blobs leaves their words pending when
// the pending list has room (see deferWords).
func smallWrite(bulk bool, n int) bool { return !bulk && n < pendingRows }

// mergeWords merges the index segments a transaction's writes of at least
// mergeAfter blobs added: one big write leaves the index in several
// segments (FTS5 flushes about every megabyte, and at every statement), and
// every lookup seeks each of them: find -n 5 after a 100k import costs
// 0.76x with them merged. Merging is bounded by the pages the writes added
// (62 ms for 100k blobs).
//
// A write that is most of the index merges all of it into one segment (a
// negative 'merge': every segment put on one level, then merged). A write
// that is a small part of a big index must not: such a merge never
// finishes within the write's budget and starts over at the next write, so
// a store written in many such writes (1,000 sessions imported one by one)
// kept about two segments a write, 1,963 in all, and every search paid a
// seek in each (sessions find over 1M messages: 3.1x --version with the
// index merged, 9.6x without). It merges as FTS5's own automerge does
// instead (a positive 'merge': levels of at least four segments), so the
// segments stay a few a level, over logarithmically many levels.
func (t *txn) mergeWords(ctx context.Context) error {
	if t.indexed < mergeAfter {
		return nil
	}
	budget := t.indexed/50 + 64
	var stored int64
	if err := t.q.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM blobs`).Scan(&stored); err != nil {
		return fmt.Errorf("index blobs: merge: %w", err)
	}
	if int64(2*t.indexed) >= stored {
		budget = -budget
	}
	if _, err := t.exec(ctx, `INSERT INTO blob_words (blob_words, rank) VALUES ('merge', ?)`, budget); err != nil {
		return fmt.Errorf("index blobs: merge: %w", err)
	}
	return nil
}

// mergeAfter is how many blobs one write indexes before it merges the
// index's segments.
const mergeAfter = 1000

// ftsQuery quotes each word as an FTS5 string: all must occur.
func ftsQuery(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(q, " ")
}

// rareWords is how many blobs a word query may match for find to start
// from the index's matches; past it, a query with a limit walks the
// tract's commits in time order and asks the index about each (stopping
// at the limit), one without reads the tract's commits against the
// index's matches.
const rareWords = 2000

func (r reader) Search(ctx context.Context, q tract.SearchQuery) ([]tract.HistoryCommit, error) {
	if q.Commits != nil && len(q.Commits) == 0 {
		return nil, nil
	}
	from, fromArgs := `commits c`, []any(nil)
	var where []string
	var args []any
	if len(q.Words) > 0 {
		w, err := r.wordsClause(ctx, q)
		if err != nil || w.none {
			return nil, err
		}
		from, fromArgs, where, args = w.from, w.fromArgs, w.where, w.args
	}
	if q.Tract != "" {
		where, args = append(where, `c.tract = ?`), append(args, q.Tract)
	}
	if q.Type != "" {
		where, args = append(where, `json_extract(CAST(b.data AS TEXT), '$.type') = ?`), append(args, string(q.Type))
	}
	if q.Role != "" {
		where, args = append(where, `json_extract(CAST(b.data AS TEXT), '$.role') = ?`), append(args, q.Role)
	}
	if q.HasMeta {
		where = append(where, `c.meta IS NOT NULL`)
	}
	if q.Commits != nil {
		where, args = append(where, `c.hash IN (SELECT unhex(value) FROM json_each(?))`), append(args, hashList(q.Commits))
	}
	query := `SELECT ` + commitCols + `, b.data FROM ` + from + ` JOIN blobs b ON b.id = c.content_id`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	args = append(fromArgs, args...)
	if q.Limit > 0 {
		query += ` ORDER BY c.time, c.hash LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := r.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, damaged(err)
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
	return out, damaged(rows.Err())
}

// wordsSearch is how a search with words reads the commits: from the
// matching blobs' ids (few matches) or from the commits, each asked of the
// index; none says no blob matches.
type wordsSearch struct {
	from     string
	fromArgs []any
	where    []string
	args     []any
	none     bool
}

// wordsClause chooses how Search reads the commits whose blobs hold every
// word of q: the index's matches and the pending blobs' (see deferWords).
func (r reader) wordsClause(ctx context.Context, q tract.SearchQuery) (wordsSearch, error) {
	w := wordsSearch{from: `commits c`}
	match := ftsQuery(q.Words)
	ids, err := r.matchingBlobs(ctx, match, rareWords+1)
	if err != nil {
		return w, damaged(err)
	}
	pending, err := r.pendingMatches(ctx, q.Words)
	if err != nil {
		return w, damaged(err)
	}
	ids = append(ids, pending...)
	orPending := ""
	if len(pending) > 0 {
		orPending = ` OR c.content_id IN (SELECT value FROM json_each(?))`
	}
	switch {
	case len(ids) <= rareWords:
		// Few matches: start from them (content ids, through the index on
		// commits.content_id).
		if len(ids) == 0 {
			w.none = true
			return w, nil
		}
		list, _ := json.Marshal(ids)
		w.from, w.fromArgs = `json_each(?) j CROSS JOIN commits c ON c.content_id = j.value`, []any{string(list)}
		return w, nil
	case q.Limit > 0 && q.Tract != "" && q.Commits == nil:
		// Many matches, few wanted: the tract's commits in time order,
		// each asked of the index, until the limit.
		w.from = `commits c INDEXED BY commits_tract_time`
		w.where = []string{`(EXISTS (SELECT 1 FROM blob_words WHERE blob_words MATCH ? AND rowid = c.content_id)` + orPending + `)`}
	default:
		w.where = []string{`(c.content_id IN (SELECT rowid FROM blob_words WHERE blob_words MATCH ?)` + orPending + `)`}
	}
	w.args = []any{match}
	if len(pending) > 0 {
		list, _ := json.Marshal(pending)
		w.args = append(w.args, string(list))
	}
	return w, nil
}

// matchingBlobs returns the ids of up to limit blobs whose words match.
func (r reader) matchingBlobs(ctx context.Context, match string, limit int) ([]int64, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT rowid FROM blob_words WHERE blob_words MATCH ? LIMIT ?`, match, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
