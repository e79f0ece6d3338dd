package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// leanCommitMigration is version 7: a commit writes fewer pages.
//
// Of the 16 pages one `tract commit` wrote on a store of 10k messages, six
// were the full-text index (FTS5 writes a segment, its index entry, the
// blob's size row and the index's structure record for every transaction
// that adds words) and one the reflog's AUTOINCREMENT counter
// (sqlite_sequence). Now a small write leaves its new blobs' words out of
// the index, in the unindexed table (id, data bytes), and the write that
// finds pendingRows or pendingBytes there indexes them all in one
// statement; a search reads the few pending blobs and matches their words
// itself (tract.IndexWords, the words the index would hold). The reflog's
// seq is a plain rowid: entries are only ever pruned oldest first or a
// tract's at once, and the newest entry still has the largest seq, so
// nothing needed AUTOINCREMENT's never-reused ids.
//
// The reflog is rebuilt (SQLite cannot drop AUTOINCREMENT in place): like
// every migration it runs in the one IMMEDIATE transaction migrate opens,
// so a process killed in it leaves the store at its old version and the
// next writable open migrates it again.
const leanCommitMigration = `CREATE TABLE reflog_v7 (
		seq INTEGER PRIMARY KEY,
		tract TEXT NOT NULL,
		ref TEXT NOT NULL,
		old TEXT NOT NULL,
		new TEXT NOT NULL,
		operation TEXT NOT NULL,
		time INTEGER NOT NULL
	);
	INSERT INTO reflog_v7 (seq, tract, ref, old, new, operation, time)
		SELECT seq, tract, ref, old, new, operation, time FROM reflog ORDER BY seq;
	DROP TABLE reflog;
	ALTER TABLE reflog_v7 RENAME TO reflog;
	CREATE INDEX reflog_time ON reflog(time);
	CREATE TABLE unindexed (
		id INTEGER PRIMARY KEY,
		bytes INTEGER NOT NULL
	);`

// pendingRows and pendingBytes bound what the unindexed table holds: a
// search cuts the words of every pending blob, so they bound its extra
// work too.
const (
	pendingRows  = 64
	pendingBytes = 256 << 10
)

// pendingSize is what the unindexed table holds: rows and data bytes.
type pendingSize struct{ rows, bytes int64 }

// fits says new blobs of data stay pending: with them the table holds at
// most pendingRows and pendingBytes.
func (p pendingSize) fits(data [][]byte) bool {
	add := int64(0)
	for _, d := range data {
		add += int64(len(d))
	}
	return p.rows+int64(len(data)) <= pendingRows && p.bytes+add <= pendingBytes
}

// deferWords keeps the new blobs with ids first, first+1, … (data their
// bytes) out of the index when they and the pending ones (pend, read before
// the blobs were stored) stay within pendingRows and pendingBytes.
// Otherwise it indexes the pending blobs along with the new ones (texts
// cuts their words): one statement, one segment.
func (t *txn) deferWords(ctx context.Context, first int64, data [][]byte, texts func() []string, pend pendingSize) error {
	rows := pend.rows
	if pend.fits(data) {
		vals := make([]any, 0, 2*len(data))
		for i, d := range data {
			vals = append(vals, first+int64(i), len(d))
		}
		if _, err := t.insertFlat(ctx, `INSERT INTO unindexed (id, bytes)`, "(?, ?)", "", 2, wordRows, vals); err != nil {
			return fmt.Errorf("index blobs: %w", err)
		}
		return nil
	}
	words := make([]any, 0, 2*(int(rows)+len(data)))
	if rows > 0 {
		pend, err := t.pendingBlobs(ctx)
		if err != nil {
			return err
		}
		for _, p := range pend {
			words = append(words, p.id, strings.Join(tract.IndexWords(p.data), " "))
		}
		if _, err := t.exec(ctx, `DELETE FROM unindexed`); err != nil {
			return fmt.Errorf("index blobs: %w", err)
		}
	}
	for i, text := range texts() {
		words = append(words, first+int64(i), text)
	}
	if _, err := t.insertFlat(ctx, `INSERT INTO blob_words (rowid, words)`, "(?, ?)", "", 2, wordRows, words); err != nil {
		return fmt.Errorf("index blobs: %w", err)
	}
	return nil
}

// pendingBlob is a blob whose words are not in the index yet.
type pendingBlob struct {
	id   int64
	data []byte
}

// pendingBlobs reads the blobs of the unindexed table with their data.
func (r reader) pendingBlobs(ctx context.Context) ([]pendingBlob, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT u.id, b.data FROM unindexed u JOIN blobs b ON b.id = u.id ORDER BY u.id`)
	if err != nil {
		return nil, fmt.Errorf("index blobs: %w", err)
	}
	defer rows.Close()
	var out []pendingBlob
	for rows.Next() {
		var p pendingBlob
		if err := rows.Scan(&p.id, &p.data); err != nil {
			return nil, fmt.Errorf("index blobs: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// pendingMatches are the ids of the pending blobs whose words hold every
// one of words: what the index would answer for them.
func (r reader) pendingMatches(ctx context.Context, words []string) ([]int64, error) {
	pend, err := r.pendingBlobs(ctx)
	if err != nil || len(pend) == 0 {
		return nil, err
	}
	var ids []int64
	for _, p := range pend {
		if holdsAll(tract.IndexWords(p.data), words) {
			ids = append(ids, p.id)
		}
	}
	return ids, nil
}

// holdsAll reports whether the sorted list has every word of words.
func holdsAll(sorted, words []string) bool {
	for _, w := range words {
		if _, ok := slices.BinarySearch(sorted, w); !ok {
			return false
		}
	}
	return true
}
