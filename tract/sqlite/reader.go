package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/go-json-experiment/json"
)

// reader implements tract.Reader over a database or a transaction.
type reader struct {
	q querier
	// db is set outside transactions: bulk reads then use the driver
	// connection directly (see rawRows).
	db *sql.DB
	// stmts prepares the fixed point lookups once (see stmtCache).
	stmts *stmtCache
	// found, set in a transaction, holds the commits Commit found there
	// (see txn.checkParent).
	found map[tract.Hash]bool
}

const tractCols = `id, name, created, deleted, spawn_parent, spawn_commit, spawn_purpose, spawn_mode, spawn_time`

func scanTract(sc interface{ Scan(...any) error }) (tract.Tract, error) {
	var (
		t                          tract.Tract
		created                    int64
		deleted, spawnTime         sql.NullInt64
		parent, commit, purp, mode sql.NullString
	)
	if err := sc.Scan(&t.ID, &t.Name, &created, &deleted, &parent, &commit, &purp, &mode, &spawnTime); err != nil {
		return t, err
	}
	t.Created = fromNanos(created)
	if deleted.Valid {
		t.Deleted = fromNanos(deleted.Int64)
	}
	if parent.Valid {
		t.Spawn = &tract.SpawnPointer{Parent: parent.String, Commit: tract.Hash(commit.String), Purpose: purp.String,
			Mode: tract.SpawnMode(mode.String), Time: fromNanos(spawnTime.Int64)}
	}
	return t, nil
}

func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, tract.ErrNotFound)
	}
	return err
}

func (r reader) Tract(ctx context.Context, name string) (tract.Tract, error) {
	t, err := scanTract(r.queryRow(ctx, `SELECT `+tractCols+` FROM tracts WHERE name = ? AND deleted IS NULL`, name))
	return t, notFound(err, fmt.Sprintf("tract %q", name))
}

func (r reader) TractByID(ctx context.Context, id string) (tract.Tract, error) {
	t, err := scanTract(r.queryRow(ctx, `SELECT `+tractCols+` FROM tracts WHERE id = ?`, id))
	return t, notFound(err, "tract id "+id)
}

func (r reader) Tracts(ctx context.Context) ([]tract.Tract, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+tractCols+` FROM tracts WHERE deleted IS NULL ORDER BY created, name`)
	if err != nil {
		return nil, err
	}
	return scanTracts(rows)
}

func (r reader) Ref(ctx context.Context, tractID, name string) (tract.Ref, error) {
	ref := tract.Ref{Tract: tractID, Name: name}
	err := r.queryRow(ctx, `SELECT value FROM refs WHERE tract = ? AND name = ?`, tractID, name).Scan(&ref.Value)
	return ref, notFound(err, "ref "+name)
}

func (r reader) Refs(ctx context.Context, tractID string) ([]tract.Ref, error) {
	query := `SELECT r.tract, r.name, r.value FROM refs r JOIN tracts t ON t.id = r.tract WHERE t.deleted IS NULL`
	var args []any
	if tractID != "" {
		query += ` AND r.tract = ?`
		args = append(args, tractID)
	}
	rows, err := r.query(ctx, query+` ORDER BY r.tract, r.name`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.Ref
	for rows.Next() {
		var ref tract.Ref
		if err := rows.Scan(&ref.Tract, &ref.Name, &ref.Value); err != nil {
			return nil, err
		}
		out = append(out, ref)
	}
	return out, rows.Err()
}

func (r reader) Reflog(ctx context.Context, q tract.ReflogQuery) ([]tract.ReflogEntry, error) {
	var where []string
	var args []any
	if q.Tract != "" {
		where, args = append(where, "tract = ?"), append(args, q.Tract)
	}
	if q.Ref != "" {
		where, args = append(where, "ref = ?"), append(args, q.Ref)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "time >= ?"), append(args, nanos(q.Since))
	}
	query := `SELECT seq, tract, ref, old, new, operation, time FROM reflog`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := r.q.QueryContext(ctx, query+` ORDER BY seq`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.ReflogEntry
	for rows.Next() {
		var e tract.ReflogEntry
		var at int64
		if err := rows.Scan(&e.Seq, &e.Tract, &e.Ref, &e.Old, &e.New, &e.Operation, &at); err != nil {
			return nil, err
		}
		e.Time = fromNanos(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

const commitCols = `c.hash, c.tract, c.content, c.operation, c.edit_target, c.time, c.message, c.parents, c.gen, c.depth, c.jump, c.meta`

func scanCommit(sc interface{ Scan(...any) error }) (tract.Commit, error) {
	return scanCommitWith(sc)
}

// scanCommitWith scans commitCols and then extra columns into extra.
func scanCommitWith(sc interface{ Scan(...any) error }, extra ...any) (tract.Commit, error) {
	var (
		c                              tract.Commit
		hash, content, target, parents []byte
		at                             int64
		pos                            storedPosition
		meta                           sql.NullString
	)
	dest := append([]any{&hash, &c.Tract, &content, &c.Operation, &target, &at, &c.Message, &parents, &pos.gen, &pos.depth, &pos.jump, &meta}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return c, err
	}
	c.Pos = pos.position()
	if meta.Valid {
		c.Meta = []byte(meta.String)
	}
	c.Hash, c.Content, c.EditTarget, c.Time = rowform.Hash(hash), rowform.Hash(content), rowform.Hash(target), fromNanos(at)
	c.Parents = rowform.Unpack(parents)
	return c, nil
}

func (r reader) Commit(ctx context.Context, h tract.Hash) (tract.Commit, error) {
	c, err := scanCommit(r.queryRow(ctx, `SELECT `+commitCols+` FROM commits c WHERE c.hash = ?`, rowform.Raw(h)))
	if err == nil && r.found != nil {
		r.found[h] = true
	}
	return c, notFound(err, "commit "+h.Short())
}

// hashList encodes hashes as a JSON array for json_each: one parameter
// however many hashes.
func hashList(hashes []tract.Hash) string {
	b, _ := json.Marshal(hashes)
	return string(b)
}

func (r reader) CommitsWithPrefix(ctx context.Context, prefix string, limit int) ([]tract.Hash, error) {
	lo, hi := rowform.PrefixRange(prefix)
	if lo == nil || hi == nil {
		return nil, nil
	}
	rows, err := r.query(ctx, `SELECT hash FROM commits WHERE hash BETWEEN ? AND ? ORDER BY hash LIMIT ?`, lo, hi, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.Hash
	for rows.Next() {
		var h []byte
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, rowform.Hash(h))
	}
	return out, rows.Err()
}

func (r reader) ScanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	return damaged(r.scanCommits(ctx, fn))
}

func (r reader) scanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	rows, err := r.q.QueryContext(ctx, `SELECT `+commitCols+` FROM commits c`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanCommit(rows)
		if err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (r reader) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	expr, args := tokensExpr(encoding)
	var (
		rows *sql.Rows
		err  error
	)
	if len(hashes) == 1 {
		// One blob (a warm compile's appended commit): a point lookup,
		// without the list SQLite would put in a temporary table. A hash
		// that is not hex names no blob, as unhex's NULL does below.
		raw, herr := hex.DecodeString(string(hashes[0]))
		if herr != nil {
			return nil, nil
		}
		rows, err = r.query(ctx, `SELECT b.hash, b.data, `+expr+` FROM blobs b WHERE b.hash = ?`, append(args, raw)...)
	} else {
		rows, err = r.query(ctx, `SELECT b.hash, b.data, `+expr+` FROM blobs b
		WHERE b.hash IN (SELECT unhex(value) FROM json_each(?))`, append(args, hashList(hashes))...)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.Blob
	for rows.Next() {
		b, err := scanBlob(rows, encoding)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func scanBlob(rows *sql.Rows, encoding string) (tract.Blob, error) {
	var (
		b      tract.Blob
		hash   []byte
		tokens sql.NullInt64
	)
	if err := rows.Scan(&hash, &b.Data, &tokens); err != nil {
		return b, err
	}
	b.Hash = rowform.Hash(hash)
	b.Tokens, b.Encoding = -1, encoding
	if tokens.Valid {
		b.Tokens = int(tokens.Int64)
	}
	return b, nil
}

func (r reader) ScanBlobs(ctx context.Context, fn func(tract.Blob) error) error {
	return damaged(r.scanBlobs(ctx, fn))
}

func (r reader) scanBlobs(ctx context.Context, fn func(tract.Blob) error) error {
	rows, err := r.q.QueryContext(ctx, `SELECT hash, data, NULL FROM blobs`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		b, err := scanBlob(rows, "")
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (r reader) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	where := []string{"seq > ?"}
	args := []any{q.AfterSeq}
	if q.Viewers != nil {
		where = append(where, "viewer IN (SELECT value FROM json_each(?))")
		b, _ := json.Marshal(q.Viewers)
		args = append(args, string(b))
	}
	if q.Commit != "" {
		where, args = append(where, "commit_hash = ?"), append(args, rowform.Raw(q.Commit))
	}
	if q.Commits != nil {
		marks := make([]string, len(q.Commits))
		for i, h := range q.Commits {
			marks[i], args = "?", append(args, rowform.Raw(h))
		}
		where = append(where, "commit_hash IN ("+strings.Join(marks, ",")+")")
	}
	rows, err := r.query(ctx, `SELECT seq, viewer, commit_hash, priority, reason, time, head FROM annotations WHERE `+
		strings.Join(where, " AND ")+` ORDER BY seq`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.Annotation
	for rows.Next() {
		var a tract.Annotation
		var at int64
		var commit, head []byte
		if err := rows.Scan(&a.Seq, &a.Viewer, &commit, &a.Priority, &a.Reason, &at, &head); err != nil {
			return nil, err
		}
		a.Commit, a.Head, a.Time = rowform.Hash(commit), rowform.Hash(head), fromNanos(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

func (r reader) Settings(ctx context.Context, tractID string) ([]tract.Setting, error) {
	rows, err := r.query(ctx, `SELECT key, value FROM settings WHERE tract = ? ORDER BY key`, tractID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.Setting
	for rows.Next() {
		s := tract.Setting{Tract: tractID}
		if err := rows.Scan(&s.Key, &s.Value); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// scanTracts reads every row of a tracts query (tractCols) and closes it.
func scanTracts(rows *sql.Rows) ([]tract.Tract, error) {
	defer rows.Close()
	var out []tract.Tract
	for rows.Next() {
		t, err := scanTract(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
