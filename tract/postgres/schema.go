package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations[i] brings the schema from version i to i+1.
var migrations = []string{
	`CREATE TABLE tracts (
		id text COLLATE "C" PRIMARY KEY,
		name text COLLATE "C" NOT NULL,
		created bigint NOT NULL,
		deleted bigint,
		spawn_parent text COLLATE "C",
		spawn_commit text COLLATE "C",
		spawn_purpose text,
		spawn_mode text,
		spawn_time bigint
	);
	CREATE UNIQUE INDEX tracts_live_name ON tracts (name) WHERE deleted IS NULL;
	CREATE TABLE blobs (
		hash bytea PRIMARY KEY,
		data bytea NOT NULL,
		tokens_o200k integer,
		tokens_cl100k integer,
		tokens jsonb
	);
	CREATE SEQUENCE commit_seq;
	CREATE TABLE commits (
		tract text COLLATE "C" NOT NULL,
		seq bigint NOT NULL,
		hash bytea NOT NULL UNIQUE,
		content bytea REFERENCES blobs (hash),
		operation text NOT NULL,
		edit_target bytea REFERENCES commits (hash),
		time bigint NOT NULL,
		message text NOT NULL,
		first_parent bytea REFERENCES commits (hash),
		parents bytea NOT NULL,
		PRIMARY KEY (tract, seq)
	);
	CREATE INDEX commits_first_parent ON commits (first_parent) WHERE first_parent IS NOT NULL;
	CREATE INDEX commits_content ON commits (content) WHERE content IS NOT NULL;
	CREATE INDEX commits_edit_target ON commits (edit_target) WHERE edit_target IS NOT NULL;
	CREATE TABLE merge_parents (
		child bytea NOT NULL REFERENCES commits (hash) ON DELETE CASCADE,
		position integer NOT NULL,
		parent bytea NOT NULL REFERENCES commits (hash),
		PRIMARY KEY (child, position)
	);
	CREATE INDEX merge_parents_parent ON merge_parents (parent);
	CREATE TABLE refs (
		tract text COLLATE "C" NOT NULL,
		name text COLLATE "C" NOT NULL,
		value text COLLATE "C" NOT NULL,
		PRIMARY KEY (tract, name)
	);
	CREATE TABLE reflog (
		seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		tract text COLLATE "C" NOT NULL,
		ref text COLLATE "C" NOT NULL,
		old text COLLATE "C" NOT NULL,
		new text COLLATE "C" NOT NULL,
		operation text NOT NULL,
		time bigint NOT NULL
	);
	CREATE INDEX reflog_tract_ref ON reflog (tract, ref);
	CREATE INDEX reflog_time ON reflog (time);
	CREATE TABLE counters (
		name text PRIMARY KEY,
		value bigint NOT NULL
	);
	INSERT INTO counters (name, value) VALUES ('annotations', 0);
	CREATE TABLE annotations (
		seq bigint PRIMARY KEY,
		viewer text COLLATE "C" NOT NULL,
		commit_hash bytea NOT NULL REFERENCES commits (hash) ON DELETE CASCADE,
		priority text NOT NULL,
		reason text NOT NULL,
		time bigint NOT NULL,
		head bytea
	);
	CREATE INDEX annotations_commit ON annotations (commit_hash);
	CREATE INDEX annotations_viewer ON annotations (viewer, seq);`,
	positionsMigration,
	settingsSchema(),
	// Version 4: commit metadata and the full-text index (search.go).
	searchMigration,
	// Version 5: compile checkpoints (views.go).
	viewsMigration,
	// Version 6: a checkpoint's messages apart from its data (views.go).
	viewPartsMigration,
	// Version 7: a checkpoint's messages in pieces (views.go).
	viewPiecesMigration,
}

// positionsMigration is version 2: each commit's place in the DAG
// (tract.Position), filled in for the commits already stored.
const positionsMigration = `ALTER TABLE commits ADD COLUMN gen bigint, ADD COLUMN depth bigint, ADD COLUMN jump bytea;`

// settingsSchema is version 3: per-tract settings (tract config).
func settingsSchema() string {
	return `CREATE TABLE settings (
		tract text COLLATE "C" NOT NULL,
		key text COLLATE "C" NOT NULL,
		value text NOT NULL,
		PRIMARY KEY (tract, key)
	);`
}

// SchemaVersion is the schema version this package writes.
var SchemaVersion = len(migrations)

// migrateLock is the advisory lock key held while migrating.
const migrateLock = 0x6c696e65_61676501 // "lineage" + 1

// migrate brings the schema up to date. Processes that open a new database
// at once queue on an advisory lock, so only the first one migrates. It
// returns the version it found (0: none); a read-only open never migrates
// (an older schema is an oldSchemaError).
func migrate(ctx context.Context, pool *pgxpool.Pool, create, readOnly bool) (from int, err error) {
	// The common case, an up-to-date schema, takes no lock.
	var current int
	err = pool.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&current)
	switch {
	case err == nil && current == len(migrations):
		return current, nil
	case err == nil && current > len(migrations):
		return 0, fmt.Errorf("schema version %d is newer than this lineage understands (%d): upgrade lineage", current, len(migrations))
	case err != nil && sqlState(err) != "42P01" && !errors.Is(err, pgx.ErrNoRows):
		return 0, err
	case err != nil && !create:
		return 0, fmt.Errorf("no lineage schema in this database: %w", tract.ErrNotFound)
	case readOnly:
		return 0, oldSchemaError{current}
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrate schema: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
		return 0, fmt.Errorf("migrate schema: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)`); err != nil {
		return 0, fmt.Errorf("migrate schema: %w", err)
	}
	var version int
	err = tx.QueryRow(ctx, `SELECT version FROM schema_version FOR UPDATE`).Scan(&version)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return 0, fmt.Errorf("migrate schema: %w", err)
		}
	case err != nil:
		return 0, fmt.Errorf("migrate schema: %w", err)
	}
	if version > len(migrations) {
		return 0, fmt.Errorf("schema version %d is newer than this lineage understands (%d): upgrade lineage", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return 0, fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
		var backfill func(context.Context, pgx.Tx) error
		switch migrations[v] {
		case positionsMigration:
			backfill = backfillPositions
		case searchMigration:
			backfill = backfillSearch
		}
		if backfill != nil {
			if err := backfill(ctx, tx); err != nil {
				return 0, fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE schema_version SET version = $1`, len(migrations)); err != nil {
		return 0, fmt.Errorf("migrate schema: %w", err)
	}
	return version, tx.Commit(ctx)
}
