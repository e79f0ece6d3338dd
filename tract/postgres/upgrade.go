package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// oldSchemaError is a lineage schema older than this package's, found by a
// read-only open (which never migrates); it is a tract.ErrOldSchema.
type oldSchemaError struct{ version int }

func (e oldSchemaError) Error() string {
	return fmt.Sprintf("schema version %d is older than this lineage's (%d)", e.version, len(migrations))
}

func (e oldSchemaError) Unwrap() error { return tract.ErrOldSchema }

// database names the database cfg connects to, without credentials.
func database(cfg *pgxpool.Config) string {
	return fmt.Sprintf("%s@%s:%d/%s", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
}

// positionBatch is how many commits one round of backfillPositions reads
// and updates.
const positionBatch = 5000

// backfillPositions stores the position of every commit that has none
// (those written before schema version 2): one pass over the commits,
// tract by tract in creation order and in sequence order within a tract,
// batch by batch, so parents come before children; each commit is read
// and updated once (a parent met later, e.g. a child's commit a merge-from
// names, is read once out of turn).
func backfillPositions(ctx context.Context, tx pgx.Tx) error {
	pl := &tract.Placer{Stored: func(h tract.Hash) ([]tract.Hash, tract.Position, error) {
		var parents []byte
		var pos storedPosition
		err := tx.QueryRow(ctx, `SELECT parents, gen, depth, jump FROM commits WHERE hash = $1`, rowform.Raw(h)).
			Scan(&parents, &pos.gen, &pos.depth, &pos.jump)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, tract.Position{}, fmt.Errorf("commit %s: %w", h.Short(), tract.ErrNotFound)
		}
		return rowform.Unpack(parents), pos.position(), err
	}}
	var tracts []string
	rows, err := tx.Query(ctx, `SELECT c.tract FROM (SELECT DISTINCT tract FROM commits) c
		LEFT JOIN tracts t ON t.id = c.tract ORDER BY t.created IS NULL, t.created, c.tract`)
	if err != nil {
		return err
	}
	if tracts, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return err
	}
	for _, tractID := range tracts {
		if err := placeTract(ctx, tx, pl, tractID); err != nil {
			return err
		}
	}
	return nil
}

// placeTract places the commits of one tract in sequence order, batch by
// batch, storing the positions they lack (one statement a batch).
func placeTract(ctx context.Context, tx pgx.Tx, pl *tract.Placer, tractID string) error {
	type row struct {
		seq           int64
		hash, parents []byte
		pos           storedPosition
	}
	for last := int64(-1); ; {
		rows, err := tx.Query(ctx, `SELECT seq, hash, parents, gen, depth, jump FROM commits
			WHERE tract = $1 AND seq > $2 ORDER BY seq LIMIT $3`, tractID, last, positionBatch)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.hash, &r.parents, &r.pos.gen, &r.pos.depth, &r.pos.jump); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var (
			seqs, gens, depths []int64
			jumps              [][]byte
		)
		for _, r := range batch {
			stored := r.pos.position()
			p, err := pl.Place(rowform.Hash(r.hash), rowform.Unpack(r.parents), stored)
			if err != nil {
				return fmt.Errorf("place commits: %w", err)
			}
			if !stored.Known() {
				seqs, gens, depths, jumps = append(seqs, r.seq), append(gens, p.Gen), append(depths, p.Depth), append(jumps, rowform.RawOrNil(p.Jump))
			}
		}
		if len(seqs) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE commits c SET gen = u.gen, depth = u.depth, jump = u.jump
				FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[]) AS u(seq, gen, depth, jump)
				WHERE c.tract = $1 AND c.seq = u.seq`, tractID, seqs, gens, depths, jumps); err != nil {
				return err
			}
		}
		if len(batch) < positionBatch {
			return nil
		}
		last = batch[len(batch)-1].seq
	}
}

// storedPosition is a commit's gen, depth and jump columns.
type storedPosition struct {
	gen, depth *int64
	jump       []byte
}

func (s storedPosition) position() tract.Position {
	if s.gen == nil || s.depth == nil {
		return tract.Position{}
	}
	return tract.Position{Gen: *s.gen, Depth: *s.depth, Jump: rowform.Hash(s.jump)}
}
