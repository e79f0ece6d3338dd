package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is what *pgxpool.Pool and pgx.Tx share.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// reader implements tract.Reader over the pool or a transaction.
type reader struct {
	q querier
	// inTx is set inside Update: refs read there are locked (see doc.go)
	// and scans buffer their rows, since fn may use the connection.
	inTx    bool
	retries int
}

const tractCols = `id, name, created, deleted, spawn_parent, spawn_commit, spawn_purpose, spawn_mode, spawn_time`

func scanTract(sc pgx.Row) (tract.Tract, error) {
	var (
		t                          tract.Tract
		created                    int64
		deleted, spawnTime         *int64
		parent, commit, purp, mode *string
	)
	if err := sc.Scan(&t.ID, &t.Name, &created, &deleted, &parent, &commit, &purp, &mode, &spawnTime); err != nil {
		return t, err
	}
	t.Created = fromNanos(created)
	if deleted != nil {
		t.Deleted = fromNanos(*deleted)
	}
	if parent != nil {
		t.Spawn = &tract.SpawnPointer{Parent: *parent, Commit: tract.Hash(deref(commit)), Purpose: deref(purp),
			Mode: tract.SpawnMode(deref(mode))}
		if spawnTime != nil {
			t.Spawn.Time = fromNanos(*spawnTime)
		}
	}
	return t, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, tract.ErrNotFound)
	}
	return err
}

func (r reader) Tract(ctx context.Context, name string) (tract.Tract, error) {
	t, err := scanTract(r.q.QueryRow(ctx, `SELECT `+tractCols+` FROM tracts WHERE name = $1 AND deleted IS NULL`, name))
	return t, notFound(err, fmt.Sprintf("tract %q", name))
}

func (r reader) TractByID(ctx context.Context, id string) (tract.Tract, error) {
	t, err := scanTract(r.q.QueryRow(ctx, `SELECT `+tractCols+` FROM tracts WHERE id = $1`, id))
	return t, notFound(err, "tract id "+id)
}

func (r reader) Tracts(ctx context.Context) ([]tract.Tract, error) {
	rows, err := r.q.Query(ctx, `SELECT `+tractCols+` FROM tracts WHERE deleted IS NULL ORDER BY created, name`)
	if err != nil {
		return nil, err
	}
	return scanTracts(rows)
}

// Ref inside a transaction locks the row: the transaction is about to
// move it, and a writer that moves it first makes this one wait and then
// read the new value instead of failing its compare-and-swap.
func (r reader) Ref(ctx context.Context, tractID, name string) (tract.Ref, error) {
	ref := tract.Ref{Tract: tractID, Name: name}
	query := `SELECT value FROM refs WHERE tract = $1 AND name = $2`
	if r.inTx {
		query += ` FOR UPDATE`
	}
	err := r.q.QueryRow(ctx, query, tractID, name).Scan(&ref.Value)
	return ref, notFound(err, "ref "+name)
}

// Refs takes no locks, even in a transaction: a collection reads them
// after locking the commits table, and waiting there for a writer that
// holds a ref and waits for the table would deadlock.
func (r reader) Refs(ctx context.Context, tractID string) ([]tract.Ref, error) {
	query := `SELECT r.tract, r.name, r.value FROM refs r JOIN tracts t ON t.id = r.tract WHERE t.deleted IS NULL`
	var args []any
	if tractID != "" {
		query += ` AND r.tract = $1`
		args = append(args, tractID)
	}
	rows, err := r.q.Query(ctx, query+` ORDER BY r.tract, r.name`, args...)
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
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if q.Tract != "" {
		add("tract = $%d", q.Tract)
	}
	if q.Ref != "" {
		add("ref = $%d", q.Ref)
	}
	if !q.Since.IsZero() {
		add("time >= $%d", nanos(q.Since))
	}
	query := `SELECT seq, tract, ref, old, new, operation, time FROM reflog`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := r.q.Query(ctx, query+` ORDER BY seq`, args...)
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

func scanCommit(sc pgx.Row) (tract.Commit, error) {
	return scanCommitWith(sc)
}

// scanCommitWith scans commitCols and then extra columns into extra.
func scanCommitWith(sc pgx.Row, extra ...any) (tract.Commit, error) {
	var (
		c                              tract.Commit
		hash, content, target, parents []byte
		at                             int64
		pos                            storedPosition
		meta                           *string
	)
	dest := append([]any{&hash, &c.Tract, &content, &c.Operation, &target, &at, &c.Message, &parents, &pos.gen, &pos.depth, &pos.jump, &meta}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return c, err
	}
	c.Pos = pos.position()
	if meta != nil {
		c.Meta = []byte(*meta)
	}
	c.Hash, c.Content, c.EditTarget, c.Time = rowform.Hash(hash), rowform.Hash(content), rowform.Hash(target), fromNanos(at)
	c.Parents = rowform.Unpack(parents)
	return c, nil
}

func (r reader) Commit(ctx context.Context, h tract.Hash) (tract.Commit, error) {
	c, err := scanCommit(r.q.QueryRow(ctx, `SELECT `+commitCols+` FROM commits c WHERE c.hash = $1`, rowform.Raw(h)))
	return c, notFound(err, "commit "+h.Short())
}

func (r reader) CommitsWithPrefix(ctx context.Context, prefix string, limit int) ([]tract.Hash, error) {
	lo, hi := rowform.PrefixRange(prefix)
	if lo == nil || hi == nil {
		return nil, nil
	}
	rows, err := r.q.Query(ctx, `SELECT hash FROM commits WHERE hash BETWEEN $1 AND $2 ORDER BY hash LIMIT $3`, lo, hi, limit)
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

// ScanCommits inside a transaction is a collection's scan: it first locks
// the commits table against inserts, so writers wait for the collection
// rather than race it (as on SQLite), and reads every row before calling
// fn, which may use the transaction.
func (r reader) ScanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	if r.inTx {
		if _, err := r.q.Exec(ctx, `LOCK TABLE commits IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
	}
	rows, err := r.q.Query(ctx, `SELECT `+commitCols+` FROM commits c`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var buf []tract.Commit
	for rows.Next() {
		c, err := scanCommit(rows)
		if err != nil {
			return err
		}
		if r.inTx {
			buf = append(buf, c)
		} else if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, c := range buf {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func (r reader) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	keys := make([][]byte, len(hashes))
	for i, h := range hashes {
		keys[i] = rowform.Raw(h)
	}
	expr, args := tokensExpr(encoding, 2)
	rows, err := r.q.Query(ctx, `SELECT b.hash, b.data, `+expr+` FROM blobs b WHERE b.hash = ANY($1)`, append([]any{keys}, args...)...)
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

func scanBlob(rows pgx.Rows, encoding string) (tract.Blob, error) {
	var (
		b      tract.Blob
		hash   []byte
		tokens *int32
	)
	if err := rows.Scan(&hash, &b.Data, &tokens); err != nil {
		return b, err
	}
	b.Hash = rowform.Hash(hash)
	b.Tokens, b.Encoding = -1, encoding
	if tokens != nil {
		b.Tokens = int(*tokens)
	}
	return b, nil
}

func (r reader) ScanBlobs(ctx context.Context, fn func(tract.Blob) error) error {
	rows, err := r.q.Query(ctx, `SELECT hash, data, NULL::integer FROM blobs`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var buf []tract.Blob
	for rows.Next() {
		b, err := scanBlob(rows, "")
		if err != nil {
			return err
		}
		if r.inTx {
			buf = append(buf, b)
		} else if err := fn(b); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, b := range buf {
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

func (r reader) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	where := []string{"seq > $1"}
	args := []any{q.AfterSeq}
	if q.Viewers != nil {
		args = append(args, q.Viewers)
		where = append(where, fmt.Sprintf("viewer = ANY($%d)", len(args)))
	}
	if q.Commit != "" {
		args = append(args, rowform.Raw(q.Commit))
		where = append(where, fmt.Sprintf("commit_hash = $%d", len(args)))
	}
	if q.Commits != nil {
		raw := make([][]byte, len(q.Commits))
		for i, h := range q.Commits {
			raw[i] = rowform.Raw(h)
		}
		args = append(args, raw)
		where = append(where, fmt.Sprintf("commit_hash = ANY($%d)", len(args)))
	}
	rows, err := r.q.Query(ctx, `SELECT seq, viewer, commit_hash, priority, reason, time, head FROM annotations WHERE `+
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
	rows, err := r.q.Query(ctx, `SELECT key, value FROM settings WHERE tract = $1 ORDER BY key`, tractID)
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
func scanTracts(rows pgx.Rows) ([]tract.Tract, error) {
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
