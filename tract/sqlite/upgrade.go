package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

// oldSchemaError is a lineage store on a schema older than this package's,
// found by a read-only open (which never migrates); it is a
// tract.ErrOldSchema.
// readOnly says a writable open found it but may not write the file.
type oldSchemaError struct {
	version  int
	readOnly bool
}

func (e oldSchemaError) Error() string {
	return fmt.Sprintf("schema version %d is older than this lineage's (%d)", e.version, len(migrations))
}

func (e oldSchemaError) Unwrap() error { return tract.ErrOldSchema }

// oldStore is the error of a read-only open of the store at path on an
// older schema: its version and what to do.
func oldStore(path string, old oldSchemaError) error {
	return &tract.OldSchemaError{Store: path, Version: old.version, Current: len(migrations), NotWritable: old.readOnly}
}

// positionBatch is how many commits one round of backfillPositions reads
// and updates.
const positionBatch = 2000

// backfillPositions stores the position of every commit that has none
// (those written before schema version 2): one pass over the commits,
// tract by tract in creation order and in sequence order within a tract,
// batch by batch, so parents come before children; each commit is read
// and updated once (a parent met later, e.g. a child's commit a merge-from
// names, is read once out of turn).
func backfillPositions(ctx context.Context, tx *sql.Tx) error {
	update, err := tx.PrepareContext(ctx, `UPDATE commits SET gen = ?, depth = ?, jump = ? WHERE tract = ? AND seq = ?`)
	if err != nil {
		return err
	}
	defer update.Close()
	pl := &tract.Placer{Stored: func(h tract.Hash) ([]tract.Hash, tract.Position, error) {
		var parents []byte
		var pos storedPosition
		err := tx.QueryRowContext(ctx, `SELECT parents, gen, depth, jump FROM commits WHERE hash = ?`, rowform.Raw(h)).
			Scan(&parents, &pos.gen, &pos.depth, &pos.jump)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, tract.Position{}, fmt.Errorf("commit %s: %w", h.Short(), tract.ErrNotFound)
		}
		return rowform.Unpack(parents), pos.position(), err
	}}
	tracts, err := tractsInCreationOrder(ctx, tx)
	if err != nil {
		return err
	}
	for _, tractID := range tracts {
		if err := placeTract(ctx, tx, pl, update, tractID); err != nil {
			return err
		}
	}
	return nil
}

// tractsInCreationOrder are the tracts that hold commits, oldest first (a
// spawned tract after its parent, so its base is placed when it is met).
func tractsInCreationOrder(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.tract FROM (SELECT DISTINCT tract FROM commits) c
		LEFT JOIN tracts t ON t.id = c.tract ORDER BY t.created IS NULL, t.created, c.tract`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// placeTract places the commits of one tract in sequence order, batch by
// batch, storing the positions they lack.
func placeTract(ctx context.Context, tx *sql.Tx, pl *tract.Placer, update *sql.Stmt, tractID string) error {
	type row struct {
		seq           int64
		hash, parents []byte
		pos           storedPosition
	}
	for last := int64(-1); ; {
		rows, err := tx.QueryContext(ctx, `SELECT seq, hash, parents, gen, depth, jump FROM commits
			WHERE tract = ? AND seq > ? ORDER BY seq LIMIT ?`, tractID, last, positionBatch)
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
		for _, r := range batch {
			stored := r.pos.position()
			p, err := pl.Place(rowform.Hash(r.hash), rowform.Unpack(r.parents), stored)
			if err != nil {
				return fmt.Errorf("place commits: %w", err)
			}
			if stored.Known() {
				continue
			}
			gen, depth, jump := posColumns(p)
			if _, err := update.ExecContext(ctx, gen, depth, jump, tractID, r.seq); err != nil {
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
	gen, depth sql.NullInt64
	jump       []byte
}

func (s storedPosition) position() tract.Position {
	if !s.gen.Valid {
		return tract.Position{}
	}
	return tract.Position{Gen: s.gen.Int64, Depth: s.depth.Int64, Jump: rowform.Hash(s.jump)}
}
