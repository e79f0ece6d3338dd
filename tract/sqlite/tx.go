package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/go-json-experiment/json"
)

func (t *txn) CreateTract(ctx context.Context, tr tract.Tract) error {
	var parent, commit, purpose, mode any
	var spawnTime any
	if sp := tr.Spawn; sp != nil {
		parent, commit, purpose, mode, spawnTime = sp.Parent, string(sp.Commit), sp.Purpose, string(sp.Mode), nanos(sp.Time)
	}
	_, err := t.exec(ctx, `INSERT INTO tracts (id, name, created, spawn_parent, spawn_commit, spawn_purpose, spawn_mode, spawn_time)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, tr.ID, tr.Name, nanos(tr.Created), parent, commit, purpose, mode, spawnTime)
	if isUnique(err) {
		return fmt.Errorf("tract %q: %w", tr.Name, tract.ErrExists)
	}
	return err
}

func (t *txn) DeleteTract(ctx context.Context, id string, at time.Time) error {
	res, err := t.exec(ctx, `UPDATE tracts SET deleted = ? WHERE id = ? AND deleted IS NULL`, nanos(at), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("tract id %s: %w", id, tract.ErrNotFound)
	}
	if _, err = t.exec(ctx, `DELETE FROM refs WHERE tract = ?`, id); err != nil {
		return err
	}
	_, err = t.exec(ctx, `DELETE FROM compiled_views WHERE viewer = ?`, id)
	return err
}

// PutBlobs inserts the blobs with their token counts in multi-row
// statements. A blob that already existed gets its count through SetTokens.
// New blobs get ids counted on from the largest one (the transaction holds
// the write lock), so PutCommits binds content_id without looking the blob
// up by hash again.
func (t *txn) PutBlobs(ctx context.Context, blobs ...tract.Blob) error {
	if len(blobs) == 0 {
		return nil
	}
	if len(blobs) >= bulkRows {
		if err := t.startBulk(ctx); err != nil {
			return err
		}
	}
	buf, arena := t.buffers(blobCols*len(blobs), 32*len(blobs))
	defer t.release(buf)
	rows, ids, data, counted, err := blobRows(buf, arena, blobs)
	if err != nil {
		return err
	}
	next := int64(len(data))
	small := smallWrite(t.bulk, len(data))
	last, pend, err := t.lastBlob(ctx, small)
	if err != nil {
		return err
	}
	for h := range ids {
		ids[h] += last
	}
	next += last
	lazy := small && pend.fits(data)
	words := blobWords(data, lazy)
	// The ids are SQLite's (the largest one plus one, row by row): an id
	// bound by the statement would make it keep a statement journal (a
	// copy of every page it touches, and a flush of the search index's
	// pending words at its start), as OR FAIL spares it below. A row
	// skipped as already stored shifts the ids after it: then none is
	// trusted, nor when the largest id is not the last one counted (both
	// checked below; the blobs are then found by hash).
	//
	// OR FAIL: a NOT NULL or CHECK failure stops the statement without
	// rolling back its earlier rows, which spares SQLite a statement
	// journal; the failed call fails its whole transaction anyway.
	inserted, err := t.insertColumns(ctx, `INSERT OR FAIL INTO blobs`, []string{"hash", "data", "tokens_o200k", "tokens_cl100k", "tokens"},
		`ON CONFLICT DO NOTHING`, batchRows, rows)
	if err != nil {
		if !lazy {
			words() // the words' goroutine ends before the call does
		}
		return fmt.Errorf("store blobs: %w", err)
	}
	var top int64 // every row in, with the ids counted on: last+1 … next
	if inserted == int64(len(data)) {
		if top, _, err = t.lastBlob(ctx, small); err != nil {
			return err
		}
	}
	if inserted == int64(len(data)) && top == next {
		// Only the latest call's ids are kept: an import calls once per
		// chunk, and a commit whose blob an earlier call stored finds it
		// by hash.
		t.blobIDs = ids
		return t.indexNewBlobs(ctx, last+1, data, words, pend)
	}
	// Some existed: their ids are not ours, and their counts go in now.
	// When none was new, every one is indexed or pending already (a blob
	// is stored with its words or a row in unindexed), so the index is
	// not touched (opening it costs FTS5 its own statements).
	if inserted == 0 {
		if !lazy {
			words() // the words' goroutine ends before the call does
		}
		return t.setCounted(ctx, counted)
	}
	return t.indexExisting(ctx, blobs, words(), counted)
}

// blobCols are the columns of a blob row: hash, data, tokens_o200k,
// tokens_cl100k, tokens.
const blobCols = 5

// blobRows lays out the rows of blobs in rows (a blob listed twice taken
// once): ids numbers them from 1 in that order, data is their bytes and
// counted the token counts they carry (see tokenColumns).
func blobRows(rows []any, arena rawArena, blobs []tract.Blob) (_ []any, ids map[tract.Hash]int64, data [][]byte, counted map[string]map[tract.Hash]int, err error) {
	ids = make(map[tract.Hash]int64, len(blobs))
	counted = map[string]map[tract.Hash]int{}
	for _, b := range blobs {
		if _, dup := ids[b.Hash]; dup {
			continue
		}
		ids[b.Hash] = int64(len(ids) + 1)
		rows = append(rows, arena.raw(b.Hash), b.Data, nil, nil, nil)
		if err := tokenColumns(rows[len(rows)-blobCols:], b, counted); err != nil {
			return nil, nil, nil, nil, err
		}
		data = append(data, b.Data)
	}
	return rows, ids, data, counted, nil
}

// lastBlob reads the largest blob id and, for a small write (see
// smallWrite), the pending list's size in the same statement: a one-blob
// write (`tract commit`, a recorded turn) prepares one statement for both,
// and the same one again after its insert.
func (t *txn) lastBlob(ctx context.Context, small bool) (last int64, pend pendingSize, err error) {
	if small {
		err = t.queryRow(ctx, `SELECT (SELECT IFNULL(MAX(id), 0) FROM blobs), count(*), IFNULL(SUM(bytes), 0) FROM unindexed`).Scan(&last, &pend.rows, &pend.bytes)
	} else {
		err = t.queryRow(ctx, `SELECT IFNULL(MAX(id), 0) FROM blobs`).Scan(&last)
	}
	if err != nil {
		return 0, pend, fmt.Errorf("store blobs: %w", err)
	}
	return last, pend, nil
}

// tokenColumns fills a blob row's token columns (hash, data, tokens_o200k,
// tokens_cl100k, tokens) with b's count, when it has one, and notes it in
// counted (encoding → blob → count).
func tokenColumns(row []any, b tract.Blob, counted map[string]map[tract.Hash]int) error {
	if b.Tokens < 0 || b.Encoding == "" {
		return nil
	}
	if counted[b.Encoding] == nil {
		counted[b.Encoding] = map[tract.Hash]int{}
	}
	counted[b.Encoding][b.Hash] = b.Tokens
	if slot, ok := rowform.TokenSlot(b.Encoding); ok {
		row[2+slot] = b.Tokens
		return nil
	}
	obj, err := json.Marshal(map[string]int{b.Encoding: b.Tokens})
	if err != nil {
		return err
	}
	row[4] = string(obj)
	return nil
}

// indexExisting indexes the blobs not indexed yet (found by hash; texts
// are their words, cut already) and sets the counts of counted: what
// PutBlobs does when some were stored already.
func (t *txn) indexExisting(ctx context.Context, blobs []tract.Blob, texts []string, counted map[string]map[tract.Hash]int) error {
	if err := t.indexBlobs(ctx, blobs, texts); err != nil {
		return err
	}
	return t.setCounted(ctx, counted)
}

// setCounted sets the token counts of counted (encoding → blob → count).
func (t *txn) setCounted(ctx context.Context, counted map[string]map[tract.Hash]int) error {
	for _, enc := range slices.Sorted(maps.Keys(counted)) {
		if err := t.SetTokens(ctx, enc, counted[enc]); err != nil {
			return err
		}
	}
	return nil
}

// PutCommits numbers each tract's new commits after its last one, so a
// tract's history is a range of its clustered key.
func (t *txn) PutCommits(ctx context.Context, commits ...tract.Commit) error {
	next := map[string]int64{}
	var parentRows [][]any
	written := make(map[tract.Hash]bool, len(commits))
	for _, c := range commits {
		written[c.Hash] = true
	}
	// One commit (`tract commit`, a recorded turn) looks up its sequence
	// number, and its blob's id when another call stored the blob, in
	// its insert: two statements fewer to prepare.
	one := len(commits) == 1
	contentIDs := t.blobIDs
	if !one {
		var err error
		if contentIDs, err = t.contentIDs(ctx, commits); err != nil {
			return fmt.Errorf("store commits: %w", err)
		}
	}
	names := []string{"tract", "seq", "hash", "content", "content_id", "operation", "edit_target", "time", "message", "parents", "gen", "depth", "jump", "meta"}
	flat, arena := t.buffers(len(commits)*len(names), 32*4*len(commits))
	defer t.release(flat)
	for _, c := range commits {
		var seq any = valueOf{`(SELECT IFNULL(MAX(seq), 0) + 1 FROM commits WHERE tract = ?)`, []any{c.Tract}}
		if !one {
			n, err := t.nextSeq(ctx, next, c.Tract)
			if err != nil {
				return err
			}
			seq = n
		}
		for i, p := range c.Parents {
			if i == 0 {
				if !written[p] {
					t.checkParent(p)
				}
				continue
			}
			parentRows = append(parentRows, []any{rowform.Raw(c.Hash), i, rowform.Raw(p)})
		}
		var contentID any
		if id, ok := contentIDs[c.Content]; ok {
			contentID = id
		} else if one && c.Content != "" {
			contentID = valueOf{`(SELECT id FROM blobs WHERE hash = ?)`, []any{rowform.Raw(c.Content)}}
		}
		var gen, depth, jump any
		if c.Pos.Known() {
			gen, depth, jump = c.Pos.Gen, c.Pos.Depth, arena.raw(c.Pos.Jump)
		}
		var meta any
		if len(c.Meta) > 0 {
			meta = string(c.Meta)
		}
		flat = append(flat, c.Tract, seq, arena.raw(c.Hash), arena.raw(c.Content), contentID,
			string(c.Operation), nullHash(c.EditTarget), nanos(c.Time), c.Message, rowform.Pack(c.Parents), gen, depth, jump, meta)
	}
	// OR FAIL as in PutBlobs. The first_parent column stays NULL (see
	// checkParent). A content whose blob is not stored gets no id, which
	// the table's CHECK refuses.
	if _, err := t.insertColumns(ctx, `INSERT OR FAIL INTO commits`, names, "ON CONFLICT DO NOTHING", batchRows, flat); err != nil {
		return fmt.Errorf("store commits: %w", err)
	}
	if _, err := t.insertRows(ctx, `INSERT INTO merge_parents (child, position, parent)`, "ON CONFLICT DO NOTHING", 3, parentRows); err != nil {
		return fmt.Errorf("store commit parents: %w", err)
	}
	return nil
}

// nextSeq numbers the next commit of tractID on from next (the numbers
// given so far), or from the tract's last stored commit.
func (t *txn) nextSeq(ctx context.Context, next map[string]int64, tractID string) (int64, error) {
	seq, ok := next[tractID]
	if !ok {
		if err := t.queryRow(ctx, `SELECT IFNULL(MAX(seq), 0) FROM commits WHERE tract = ?`, tractID).Scan(&seq); err != nil {
			return 0, err
		}
	}
	next[tractID] = seq + 1
	return seq + 1, nil
}

// contentIDs are the blob ids of the commits' contents: those the latest
// PutBlobs assigned, and the others looked up by hash in one query.
func (t *txn) contentIDs(ctx context.Context, commits []tract.Commit) (map[tract.Hash]int64, error) {
	var missing []tract.Hash
	seen := map[tract.Hash]bool{}
	for _, c := range commits {
		if _, ok := t.blobIDs[c.Content]; c.Content != "" && !ok && !seen[c.Content] {
			seen[c.Content] = true
			missing = append(missing, c.Content)
		}
	}
	if len(missing) == 0 {
		return t.blobIDs, nil
	}
	ids := make(map[tract.Hash]int64, len(t.blobIDs)+len(missing))
	maps.Copy(ids, t.blobIDs)
	rows, err := t.q.QueryContext(ctx, `SELECT b.hash, b.id FROM json_each(?) j JOIN blobs b ON b.hash = unhex(j.value)`, hashList(missing))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h []byte
		var id int64
		if err := rows.Scan(&h, &id); err != nil {
			return nil, err
		}
		ids[rowform.Hash(h)] = id
	}
	return ids, rows.Err()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (t *txn) UpdateRef(ctx context.Context, u tract.RefUpdate) error {
	var cur string
	err := t.queryRow(ctx, `SELECT value FROM refs WHERE tract = ? AND name = ?`, u.Tract, u.Name).Scan(&cur)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if cur != u.Old {
		return fmt.Errorf("ref %s: expected %q, found %q: %w", u.Name, short(u.Old), short(cur), tract.ErrBranchMoved)
	}
	if u.New == "" {
		_, err = t.exec(ctx, `DELETE FROM refs WHERE tract = ? AND name = ?`, u.Tract, u.Name)
	} else {
		_, err = t.exec(ctx, `INSERT INTO refs (tract, name, value) VALUES (?, ?, ?)
			ON CONFLICT (tract, name) DO UPDATE SET value = excluded.value`, u.Tract, u.Name, u.New)
	}
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO reflog (tract, ref, old, new, operation, time) VALUES (?, ?, ?, ?, ?, ?)`,
		u.Tract, u.Name, u.Old, u.New, u.Operation, nanos(u.Time))
	return err
}

func short(v string) string {
	if len(v) == 64 {
		return v[:8]
	}
	return v
}

func (t *txn) AddAnnotation(ctx context.Context, a tract.Annotation) error {
	_, err := t.exec(ctx, `INSERT INTO annotations (viewer, commit_hash, priority, reason, time, head) VALUES (?, ?, ?, ?, ?, ?)`,
		a.Viewer, rowform.Raw(a.Commit), string(a.Priority), a.Reason, nanos(a.Time), nullHash(a.Head))
	if err != nil && strings.Contains(err.Error(), "FOREIGN KEY") {
		return fmt.Errorf("annotate commit %s: %w", a.Commit.Short(), tract.ErrNotFound)
	}
	return err
}

func (t *txn) SetTokens(ctx context.Context, encoding string, counts map[tract.Hash]int) error {
	query := `UPDATE blobs SET tokens = json_set(IFNULL(tokens, '{}'), ?, ?) WHERE hash = ?`
	args := []any{`$."` + encoding + `"`}
	if col, ok := rowform.TokenColumn(encoding); ok {
		query, args = `UPDATE blobs SET `+col+` = ? WHERE hash = ?`, nil
	}
	for h, n := range counts {
		if _, err := t.exec(ctx, query, append(args, n, rowform.Raw(h))...); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) DeleteCommits(ctx context.Context, hashes []tract.Hash) error {
	if len(hashes) == 0 {
		return nil
	}
	t.deleted = append(t.deleted, hashes...)
	clear(t.found) // a commit found before may be one of them
	list := hashList(hashes)
	for _, q := range []string{
		`DELETE FROM annotations WHERE commit_hash IN (SELECT unhex(value) FROM json_each(?))`,
		`DELETE FROM compiled_views WHERE head IN (SELECT unhex(value) FROM json_each(?))`,
		`DELETE FROM merge_parents WHERE child IN (SELECT unhex(value) FROM json_each(?))`,
		`DELETE FROM commits WHERE hash IN (SELECT unhex(value) FROM json_each(?))`,
	} {
		if _, err := t.q.ExecContext(ctx, q, list); err != nil {
			return fmt.Errorf("delete commits: %w", err)
		}
	}
	return nil
}

func (t *txn) DeleteUnusedBlobs(ctx context.Context) (int, error) {
	// A deleted id can be given again: forget the ones PutBlobs assigned.
	t.blobIDs = nil
	res, err := t.q.ExecContext(ctx, `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM commits c WHERE c.content_id = blobs.id)`)
	if err != nil {
		return 0, err
	}
	if _, err := t.q.ExecContext(ctx, `DELETE FROM blob_words WHERE rowid NOT IN (SELECT id FROM blobs)`); err != nil {
		return 0, err
	}
	if _, err := t.q.ExecContext(ctx, `DELETE FROM unindexed WHERE id NOT IN (SELECT id FROM blobs)`); err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

func (t *txn) PruneReflog(ctx context.Context, before time.Time) (int, error) {
	res, err := t.q.ExecContext(ctx, `DELETE FROM reflog WHERE time < ?`, nanos(before))
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// posColumns are the gen, depth and jump columns of p (NULL when unknown).
func posColumns(p tract.Position) (gen, depth, jump any) {
	if !p.Known() {
		return nil, nil, nil
	}
	return p.Gen, p.Depth, nullHash(p.Jump)
}

// nullHash is h's raw form, or NULL for the empty hash (the driver binds a
// nil []byte as an empty blob, not NULL).
func nullHash(h tract.Hash) any {
	if h == "" {
		return nil
	}
	return rowform.Raw(h)
}

func (t *txn) PutSetting(ctx context.Context, s tract.Setting) error {
	if s.Value == "" {
		_, err := t.q.ExecContext(ctx, `DELETE FROM settings WHERE tract = ? AND key = ?`, s.Tract, s.Key)
		return err
	}
	// Prepared once a transaction: a session's import sets several keys.
	_, err := t.exec(ctx, `INSERT INTO settings (tract, key, value) VALUES (?, ?, ?)
		ON CONFLICT (tract, key) DO UPDATE SET value = excluded.value`, s.Tract, s.Key, s.Value)
	return err
}
