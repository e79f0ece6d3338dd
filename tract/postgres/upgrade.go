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

// oldSchemaError is a lineage schema older than this package's.
type oldSchemaError struct{ version int }

func (e oldSchemaError) Error() string {
	return fmt.Sprintf("schema version %d is older than this lineage's (%d)", e.version, len(migrations))
}

// upgradeForRead migrates a database a read-only open found on an older
// schema, through one pool without the read-only default (migrate's
// advisory lock makes concurrent opens migrate once). A role that may not
// write is an error naming the database, the version and what to do.
func upgradeForRead(ctx context.Context, cfg *pgxpool.Config, old oldSchemaError) error {
	cfg = cfg.Copy()
	delete(cfg.ConnConfig.RuntimeParams, "default_transaction_read_only")
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("postgres store: %w", err)
	}
	defer pool.Close()
	err = migrate(ctx, pool, false, false)
	switch code := sqlState(err); {
	case err == nil:
		return nil
	case code == "42501" || code == "25006":
		return fmt.Errorf("postgres store %s: %w, and this role cannot migrate it (%v): connect once as a role that may alter its tables (any lineage tract command migrates it), or use the lineage release that wrote it", database(cfg), old, err)
	}
	return fmt.Errorf("postgres store %s: migrate from schema version %d: %w", database(cfg), old.version, err)
}

// database names the database cfg connects to, without credentials.
func database(cfg *pgxpool.Config) string {
	return fmt.Sprintf("%s@%s:%d/%s", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
}

// positionBatch is how many commits one round of backfillPositions reads
// and updates.
const positionBatch = 5000

// backfillPositions stores the position of every commit that has none
// (those written before schema version 2): one pass over the commits in
// key order, batch by batch, each commit read and updated once (a parent
// met later in key order is read once, out of turn).
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
	lastTract, lastSeq := "", int64(-1)
	for {
		rows, err := tx.Query(ctx, `SELECT tract, seq, hash, parents, gen, depth, jump FROM commits
			WHERE (tract, seq) > ($1, $2) ORDER BY tract, seq LIMIT $3`, lastTract, lastSeq, positionBatch)
		if err != nil {
			return err
		}
		type row struct {
			tract         string
			seq           int64
			hash, parents []byte
			pos           storedPosition
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.tract, &r.seq, &r.hash, &r.parents, &r.pos.gen, &r.pos.depth, &r.pos.jump); err != nil {
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
			tracts     []string
			seqs, gens []int64
			depths     []int64
			jumps      [][]byte
		)
		for _, r := range batch {
			stored := r.pos.position()
			p, err := pl.Place(rowform.Hash(r.hash), rowform.Unpack(r.parents), stored)
			if err != nil {
				return fmt.Errorf("place commits: %w", err)
			}
			if !stored.Known() {
				tracts, seqs = append(tracts, r.tract), append(seqs, r.seq)
				gens, depths, jumps = append(gens, p.Gen), append(depths, p.Depth), append(jumps, rowform.RawOrNil(p.Jump))
			}
		}
		if len(tracts) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE commits c SET gen = u.gen, depth = u.depth, jump = u.jump
				FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[]) AS u(tract, seq, gen, depth, jump)
				WHERE c.tract = u.tract AND c.seq = u.seq`, tracts, seqs, gens, depths, jumps); err != nil {
				return err
			}
		}
		if len(batch) < positionBatch {
			return nil
		}
		lastTract, lastSeq = batch[len(batch)-1].tract, batch[len(batch)-1].seq
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
