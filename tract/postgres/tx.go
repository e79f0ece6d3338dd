package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/jackc/pgx/v5"
)

type txn struct {
	reader
	copies int // temporary tables made by this transaction
}

func (t *txn) CreateTract(ctx context.Context, tr tract.Tract) error {
	var parent, commit, purpose, mode *string
	var spawnTime *int64
	if sp := tr.Spawn; sp != nil {
		c, m, n := string(sp.Commit), string(sp.Mode), nanos(sp.Time)
		parent, commit, purpose, mode, spawnTime = &sp.Parent, &c, &sp.Purpose, &m, &n
	}
	// ON CONFLICT DO NOTHING rather than a unique violation, which would
	// abort the whole transaction.
	tag, err := t.q.Exec(ctx, `INSERT INTO tracts (id, name, created, spawn_parent, spawn_commit, spawn_purpose, spawn_mode, spawn_time)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
		tr.ID, tr.Name, nanos(tr.Created), parent, commit, purpose, mode, spawnTime)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("tract %q: %w", tr.Name, tract.ErrExists)
	}
	return nil
}

func (t *txn) DeleteTract(ctx context.Context, id string, at time.Time) error {
	tag, err := t.q.Exec(ctx, `UPDATE tracts SET deleted = $1 WHERE id = $2 AND deleted IS NULL`, nanos(at), id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("tract id %s: %w", id, tract.ErrNotFound)
	}
	if _, err = t.q.Exec(ctx, `DELETE FROM refs WHERE tract = $1`, id); err != nil {
		return err
	}
	_, err = t.q.Exec(ctx, `DELETE FROM compiled_views WHERE viewer = $1`, id)
	return err
}

// copyRows is the row count from which a write goes through COPY.
const copyRows = 500

// copyTemp copies rows into a new temporary table shaped like "(cols)"
// (dropped at commit) and returns its name.
func (t *txn) copyTemp(ctx context.Context, shape string, cols []string, rows [][]any) (string, error) {
	t.copies++
	name := fmt.Sprintf("lineage_copy_%d", t.copies)
	if _, err := t.q.Exec(ctx, `CREATE TEMP TABLE `+name+` `+shape+` ON COMMIT DROP`); err != nil {
		return "", err
	}
	if _, err := t.q.CopyFrom(ctx, pgx.Identifier{name}, cols, pgx.CopyFromRows(rows)); err != nil {
		return "", err
	}
	return name, nil
}

// PutBlobs inserts blobs (sorted by hash, so writers storing the same
// blobs lock them in one order) with ON CONFLICT DO NOTHING. Token counts
// go in with a new blob; blobs that existed get theirs through SetTokens.
func (t *txn) PutBlobs(ctx context.Context, blobs ...tract.Blob) error {
	if len(blobs) == 0 {
		return nil
	}
	sorted := slices.Clone(blobs)
	// Lowercase hex of one length sorts as its bytes do.
	slices.SortFunc(sorted, func(a, b tract.Blob) int { return strings.Compare(string(a.Hash), string(b.Hash)) })
	sorted = slices.CompactFunc(sorted, func(a, b tract.Blob) bool { return a.Hash == b.Hash })
	var (
		hashes, data  = make([][]byte, len(sorted)), make([][]byte, len(sorted))
		o200k, cl100k = make([]*int32, len(sorted)), make([]*int32, len(sorted))
		other         = make([]*string, len(sorted))
		counted       = map[string]map[tract.Hash]int{}
		rows          [][]any
		bulk          = len(sorted) >= copyRows
		hasCount      = false
	)
	for i, b := range sorted {
		hashes[i], data[i] = rowform.Raw(b.Hash), b.Data
		if b.Tokens >= 0 && b.Encoding != "" {
			hasCount = true
			if counted[b.Encoding] == nil {
				counted[b.Encoding] = map[tract.Hash]int{}
			}
			counted[b.Encoding][b.Hash] = b.Tokens
			n := int32(b.Tokens)
			if slot, ok := rowform.TokenSlot(b.Encoding); ok {
				[rowform.TokenSlots][]*int32{o200k, cl100k}[slot][i] = &n
			} else {
				j := fmt.Sprintf(`{%q: %d}`, b.Encoding, b.Tokens)
				other[i] = &j
			}
		}
		if bulk {
			rows = append(rows, []any{hashes[i], data[i], o200k[i], cl100k[i], other[i]})
		}
	}
	src := `unnest($1::bytea[], $2::bytea[], $3::integer[], $4::integer[], $5::jsonb[]) AS u(hash, data, o200k, cl100k, tokens)`
	args := []any{hashes, data, o200k, cl100k, other}
	if bulk {
		name, err := t.copyTemp(ctx, `(hash bytea, data bytea, o200k integer, cl100k integer, tokens jsonb)`,
			[]string{"hash", "data", "o200k", "cl100k", "tokens"}, rows)
		if err != nil {
			return fmt.Errorf("store blobs: %w", err)
		}
		src, args = name+` u`, nil
	}
	tag, err := t.q.Exec(ctx, `INSERT INTO blobs (hash, data, tokens_o200k, tokens_cl100k, tokens)
		SELECT hash, data, o200k, cl100k, tokens FROM `+src+` ORDER BY hash ON CONFLICT (hash) DO NOTHING`, args...)
	if err != nil {
		return fmt.Errorf("store blobs: %w", err)
	}
	if err := t.indexBlobs(ctx, sorted); err != nil {
		return err
	}
	if !hasCount || int(tag.RowsAffected()) == len(sorted) {
		return nil
	}
	for _, enc := range sortedKeys(counted) {
		if err := t.SetTokens(ctx, enc, counted[enc]); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// PutCommits inserts commits in order, each taking the next number of the
// commit sequence, so a commit's ancestors in its own tract have lower
// numbers and a tract's history is a range of its key.
func (t *txn) PutCommits(ctx context.Context, commits ...tract.Commit) error {
	if len(commits) == 0 {
		return nil
	}
	n := len(commits)
	var (
		tracts, ops, msgs                             = make([]string, n), make([]string, n), make([]string, n)
		hashes, contents, targets, firsts, parentsCol = make([][]byte, n), make([][]byte, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
		times                                         = make([]int64, n)
		ords                                          = make([]int32, n)
		pChild, pParent                               [][]byte
		pPos                                          []int32
		gens, depths                                  = make([]*int64, n), make([]*int64, n)
		jumps                                         = make([][]byte, n)
		metas                                         = make([]*string, n)
	)
	for i, c := range commits {
		ords[i], tracts[i], ops[i], msgs[i], times[i] = int32(i), c.Tract, string(c.Operation), c.Message, nanos(c.Time)
		hashes[i], parentsCol[i] = rowform.Raw(c.Hash), rowform.Pack(c.Parents)
		contents[i], targets[i] = rowform.RawOrNil(c.Content), rowform.RawOrNil(c.EditTarget)
		if len(c.Meta) > 0 {
			m := string(c.Meta)
			metas[i] = &m
		}
		if c.Pos.Known() {
			gens[i], depths[i], jumps[i] = &c.Pos.Gen, &c.Pos.Depth, rowform.RawOrNil(c.Pos.Jump)
		}
		for j, p := range c.Parents {
			if j == 0 {
				firsts[i] = rowform.Raw(p)
				continue
			}
			pChild, pPos, pParent = append(pChild, hashes[i]), append(pPos, int32(j)), append(pParent, rowform.Raw(p))
		}
	}
	src := `unnest($1::integer[], $2::text[], $3::bytea[], $4::bytea[], $5::text[], $6::bytea[], $7::bigint[], $8::text[], $9::bytea[], $10::bytea[], $11::bigint[], $12::bigint[], $13::bytea[], $14::text[])
		AS u(ord, tract, hash, content, operation, edit_target, time, message, first_parent, parents, gen, depth, jump, meta)`
	args := []any{ords, tracts, hashes, contents, ops, targets, times, msgs, firsts, parentsCol, gens, depths, jumps, metas}
	if n >= copyRows {
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{ords[i], tracts[i], hashes[i], contents[i], ops[i], targets[i], times[i], msgs[i], firsts[i], parentsCol[i], gens[i], depths[i], jumps[i], metas[i]}
		}
		name, err := t.copyTemp(ctx, `(ord integer, tract text, hash bytea, content bytea, operation text, edit_target bytea, time bigint, message text, first_parent bytea, parents bytea, gen bigint, depth bigint, jump bytea, meta text)`,
			[]string{"ord", "tract", "hash", "content", "operation", "edit_target", "time", "message", "first_parent", "parents", "gen", "depth", "jump", "meta"}, rows)
		if err != nil {
			return fmt.Errorf("store commits: %w", err)
		}
		src, args = name+` u`, nil
	}
	// The sorted subquery is not flattened, so nextval runs in list order.
	if _, err := t.q.Exec(ctx, `INSERT INTO commits (tract, seq, hash, content, operation, edit_target, time, message, first_parent, parents, gen, depth, jump, meta)
		SELECT tract, nextval('commit_seq'), hash, content, operation, edit_target, time, message, first_parent, parents, gen, depth, jump, meta
		FROM (SELECT * FROM `+src+` ORDER BY ord) s
		ON CONFLICT (hash) DO NOTHING`, args...); err != nil {
		return fmt.Errorf("store commits: %w", err)
	}
	if len(pChild) == 0 {
		return nil
	}
	if _, err := t.q.Exec(ctx, `INSERT INTO merge_parents (child, position, parent)
		SELECT * FROM unnest($1::bytea[], $2::integer[], $3::bytea[]) ON CONFLICT DO NOTHING`, pChild, pPos, pParent); err != nil {
		return fmt.Errorf("store commit parents: %w", err)
	}
	return nil
}

// UpdateRef compares and swaps in one statement: the ref's conditional
// UPDATE, DELETE or INSERT … ON CONFLICT DO NOTHING, and the reflog row,
// which is only written when the ref moved.
func (t *txn) UpdateRef(ctx context.Context, u tract.RefUpdate) error {
	var move string
	switch {
	case u.Old == "" && u.New == "":
		move = `SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM refs WHERE tract = $1 AND name = $2)`
	case u.Old == "":
		move = `INSERT INTO refs (tract, name, value) VALUES ($1, $2, $4) ON CONFLICT (tract, name) DO NOTHING RETURNING 1`
	case u.New == "":
		move = `DELETE FROM refs WHERE tract = $1 AND name = $2 AND value = $3 RETURNING 1`
	default:
		move = `UPDATE refs SET value = $4 WHERE tract = $1 AND name = $2 AND value = $3 RETURNING 1`
	}
	tag, err := t.q.Exec(ctx, `WITH moved AS (`+move+`)
		INSERT INTO reflog (tract, ref, old, new, operation, time) SELECT $1, $2, $3, $4, $5, $6 FROM moved`,
		u.Tract, u.Name, u.Old, u.New, u.Operation, nanos(u.Time))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var cur string
	if err := t.q.QueryRow(ctx, `SELECT value FROM refs WHERE tract = $1 AND name = $2`, u.Tract, u.Name).Scan(&cur); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return fmt.Errorf("ref %s: expected %q, found %q: %w", u.Name, short(u.Old), short(cur), tract.ErrBranchMoved)
}

func short(v string) string {
	if len(v) == 64 {
		return v[:8]
	}
	return v
}

// AddAnnotation numbers annotations from a counter row: the row stays
// locked until the transaction ends, so numbers are assigned in commit
// order and a reader that has seen number n never later finds a smaller
// one (compile caches read annotations after the last number they saw).
func (t *txn) AddAnnotation(ctx context.Context, a tract.Annotation) error {
	_, err := t.q.Exec(ctx, `WITH n AS (UPDATE counters SET value = value + 1 WHERE name = 'annotations' RETURNING value)
		INSERT INTO annotations (seq, viewer, commit_hash, priority, reason, time, head)
		SELECT n.value, $1, $2, $3, $4, $5, $6 FROM n`,
		a.Viewer, rowform.Raw(a.Commit), string(a.Priority), a.Reason, nanos(a.Time), rowform.RawOrNil(a.Head))
	if sqlState(err) == "23503" {
		return fmt.Errorf("annotate commit %s: %w", a.Commit.Short(), tract.ErrNotFound)
	}
	return err
}

func (t *txn) SetTokens(ctx context.Context, encoding string, counts map[tract.Hash]int) error {
	if len(counts) == 0 {
		return nil
	}
	hashes := make([][]byte, 0, len(counts))
	for h := range counts {
		hashes = append(hashes, rowform.Raw(h))
	}
	slices.SortFunc(hashes, bytes.Compare) // one lock order for concurrent writers
	ns := make([]int32, len(hashes))
	for i, h := range hashes {
		ns[i] = int32(counts[rowform.Hash(h)])
	}
	set, args := `tokens = COALESCE(b.tokens, '{}'::jsonb) || jsonb_build_object($3::text, u.n)`, []any{hashes, ns, encoding}
	if col, ok := rowform.TokenColumn(encoding); ok {
		set, args = col+` = u.n`, args[:2]
	}
	_, err := t.q.Exec(ctx, `UPDATE blobs b SET `+set+` FROM unnest($1::bytea[], $2::integer[]) AS u(h, n) WHERE b.hash = u.h`, args...)
	return err
}

func (t *txn) DeleteCommits(ctx context.Context, hashes []tract.Hash) error {
	if len(hashes) == 0 {
		return nil
	}
	keys := make([][]byte, len(hashes))
	for i, h := range hashes {
		keys[i] = rowform.Raw(h)
	}
	for _, q := range []string{
		`DELETE FROM annotations WHERE commit_hash = ANY($1)`,
		`DELETE FROM compiled_views WHERE head = ANY($1)`,
		`DELETE FROM merge_parents WHERE child = ANY($1)`,
		`DELETE FROM commits WHERE hash = ANY($1)`,
	} {
		if _, err := t.q.Exec(ctx, q, keys); err != nil {
			return fmt.Errorf("delete commits: %w", err)
		}
	}
	return nil
}

func (t *txn) DeleteUnusedBlobs(ctx context.Context) (int, error) {
	tag, err := t.q.Exec(ctx, `DELETE FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM commits c WHERE c.content = b.hash)`)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

func (t *txn) PruneReflog(ctx context.Context, before time.Time) (int, error) {
	tag, err := t.q.Exec(ctx, `DELETE FROM reflog WHERE time < $1`, nanos(before))
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

func (t *txn) PutSetting(ctx context.Context, s tract.Setting) error {
	if s.Value == "" {
		_, err := t.q.Exec(ctx, `DELETE FROM settings WHERE tract = $1 AND key = $2`, s.Tract, s.Key)
		return err
	}
	_, err := t.q.Exec(ctx, `INSERT INTO settings (tract, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (tract, key) DO UPDATE SET value = excluded.value`, s.Tract, s.Key, s.Value)
	return err
}
