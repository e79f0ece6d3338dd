package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

// FirstParents reads the n commits of top's tract stored just before it
// (and it), in one range of the (tract, seq) key, and follows top's first
// parents through them: a chain of one tract's appends is stored in
// sequence, so the range holds n of its commits; a chain whose commits
// are spread among others' returns fewer (tract.ChainReader).
func (r reader) FirstParents(ctx context.Context, top tract.Hash, n int, encoding string) ([]tract.HistoryCommit, error) {
	var tractID string
	var seq int64
	err := r.queryRow(ctx, `SELECT tract, seq FROM commits WHERE hash = ?`, rowform.Raw(top)).Scan(&tractID, &seq)
	if errors.Is(err, sql.ErrNoRows) || n <= 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	expr, args := tokensExpr(encoding)
	rows, err := r.query(ctx, `SELECT `+commitCols+`, b.data, `+expr+` FROM commits c LEFT JOIN blobs b ON b.id = c.content_id
		WHERE c.tract = ? AND c.seq > ? AND c.seq <= ? ORDER BY c.seq DESC`, append(args, tractID, seq-int64(n), seq)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]tract.HistoryCommit, 0, n)
	want := top
	for rows.Next() {
		var data []byte
		var tokens sql.NullInt64
		c, err := scanCommitWith(rows, &data, &tokens)
		if err != nil {
			return nil, err
		}
		if c.Hash != want {
			continue // another branch's commit
		}
		hc := tract.HistoryCommit{Commit: c}
		if data != nil {
			hc.Blob = tract.Blob{Hash: c.Content, Data: data, Tokens: -1, Encoding: encoding}
			if tokens.Valid {
				hc.Blob.Tokens = int(tokens.Int64)
			}
		}
		out = append(out, hc)
		if len(c.Parents) == 0 {
			break
		}
		want = c.Parents[0]
	}
	return out, rows.Err()
}

var _ tract.ChainReader = (*Store)(nil)

// walkQuery follows the steps (?2) from commit ?1 in one statement,
// reading only each commit's pointers, one index lookup a step: a step to
// a pointer that is missing (NULL, a root's empty parents) or names no
// stored commit finds no row and ends the walk. The columns beside max(i)
// are those of its row (SQLite's rule for a bare column beside max): the
// last row, without sorting; a from not stored gives one row of NULLs.
const walkQuery = `WITH RECURSIVE walk(i, h, gen, depth, jump, fp) AS (
		SELECT 0, hash, gen, depth, jump, substr(parents, 1, 32) FROM commits WHERE hash = ?1
		UNION ALL
		SELECT w.i + 1, c.hash, c.gen, c.depth, c.jump, substr(c.parents, 1, 32)
		FROM walk w JOIN commits c ON c.hash = iif(substr(?2, w.i + 1, 1) = 'j', w.jump, w.fp)
		WHERE w.i < length(?2)
	)
	SELECT max(i), h, gen, depth, jump FROM walk`

// WalkPointers follows a commit's first-parent and skip pointers
// (tract.PointerWalker) in one query.
func (r reader) WalkPointers(ctx context.Context, from tract.Hash, steps string) (tract.Hash, tract.Position, int, error) {
	var (
		taken sql.NullInt64
		hash  []byte
		pos   storedPosition
	)
	err := r.queryRow(ctx, walkQuery, rowform.Raw(from), steps).Scan(&taken, &hash, &pos.gen, &pos.depth, &pos.jump)
	if err == nil && !taken.Valid {
		err = sql.ErrNoRows
	}
	if err != nil {
		return "", tract.Position{}, 0, notFound(err, "commit "+from.Short())
	}
	return rowform.Hash(hash), pos.position(), int(taken.Int64), nil
}

var _ tract.PointerWalker = (*Store)(nil)
