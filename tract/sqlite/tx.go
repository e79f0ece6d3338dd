package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
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
	_, err = t.exec(ctx, `DELETE FROM refs WHERE tract = ?`, id)
	return err
}

func (t *txn) PutBlob(ctx context.Context, b tract.Blob) error {
	_, err := t.exec(ctx, `INSERT OR IGNORE INTO blobs (hash, data, size) VALUES (?, ?, ?)`, string(b.Hash), b.Data, len(b.Data))
	if err == nil && b.Tokens >= 0 && b.Encoding != "" {
		_, err = t.exec(ctx, `INSERT OR REPLACE INTO blob_tokens (blob, encoding, tokens) VALUES (?, ?, ?)`, string(b.Hash), b.Encoding, b.Tokens)
	}
	return err
}

func (t *txn) PutCommit(ctx context.Context, c tract.Commit) error {
	parents := make([]string, len(c.Parents))
	for i, p := range c.Parents {
		parents[i] = string(p)
	}
	res, err := t.exec(ctx, `INSERT OR IGNORE INTO commits (hash, tract, content, operation, edit_target, time, message, parents)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, string(c.Hash), c.Tract, nullable(string(c.Content)), string(c.Operation),
		nullable(string(c.EditTarget)), nanos(c.Time), c.Message, strings.Join(parents, " "))
	if err != nil {
		return fmt.Errorf("store commit %s: %w", c.Hash.Short(), err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	for i, p := range c.Parents {
		if _, err := t.exec(ctx, `INSERT INTO commit_parents (child, position, parent) VALUES (?, ?, ?)`, string(c.Hash), i, string(p)); err != nil {
			return fmt.Errorf("store parent %d of commit %s: %w", i, c.Hash.Short(), err)
		}
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (t *txn) UpdateRef(ctx context.Context, u tract.RefUpdate) error {
	var cur string
	err := t.q.QueryRowContext(ctx, `SELECT value FROM refs WHERE tract = ? AND name = ?`, u.Tract, u.Name).Scan(&cur)
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
		a.Viewer, string(a.Commit), string(a.Priority), a.Reason, nanos(a.Time), string(a.Head))
	if err != nil && strings.Contains(err.Error(), "FOREIGN KEY") {
		return fmt.Errorf("annotate commit %s: %w", a.Commit.Short(), tract.ErrNotFound)
	}
	return err
}

func (t *txn) SetTokens(ctx context.Context, encoding string, counts map[tract.Hash]int) error {
	for h, n := range counts {
		if _, err := t.exec(ctx, `INSERT OR REPLACE INTO blob_tokens (blob, encoding, tokens)
			SELECT hash, ?, ? FROM blobs WHERE hash = ?`, encoding, n, string(h)); err != nil {
			return err
		}
	}
	return nil
}

func (t *txn) DeleteCommits(ctx context.Context, hashes []tract.Hash) error {
	if len(hashes) == 0 {
		return nil
	}
	list := hashList(hashes)
	for _, q := range []string{
		`DELETE FROM annotations WHERE commit_hash IN (SELECT value FROM json_each(?))`,
		`DELETE FROM commit_parents WHERE child IN (SELECT value FROM json_each(?))`,
		`DELETE FROM commits WHERE hash IN (SELECT value FROM json_each(?))`,
	} {
		if _, err := t.q.ExecContext(ctx, q, list); err != nil {
			return fmt.Errorf("delete commits: %w", err)
		}
	}
	return nil
}

func (t *txn) DeleteUnusedBlobs(ctx context.Context) (int, error) {
	res, err := t.q.ExecContext(ctx, `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM commits c WHERE c.content = blobs.hash)`)
	if err != nil {
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
