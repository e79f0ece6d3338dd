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
