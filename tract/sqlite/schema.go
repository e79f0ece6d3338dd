package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// migrations[i] brings the schema from version i to i+1.
var migrations = []string{
	`CREATE TABLE tracts (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		created INTEGER NOT NULL,
		deleted INTEGER,
		spawn_parent TEXT,
		spawn_commit TEXT,
		spawn_purpose TEXT,
		spawn_mode TEXT,
		spawn_time INTEGER
	);
	CREATE UNIQUE INDEX tracts_live_name ON tracts(name) WHERE deleted IS NULL;
	CREATE TABLE blobs (
		id INTEGER PRIMARY KEY,
		hash BLOB NOT NULL UNIQUE,
		data BLOB NOT NULL,
		tokens_o200k INTEGER,
		tokens_cl100k INTEGER,
		tokens TEXT
	);
	CREATE TABLE commits (
		tract TEXT NOT NULL,
		seq INTEGER NOT NULL,
		hash BLOB NOT NULL UNIQUE,
		content BLOB,
		content_id INTEGER REFERENCES blobs(id) DEFERRABLE INITIALLY DEFERRED,
		operation TEXT NOT NULL,
		edit_target BLOB REFERENCES commits(hash) DEFERRABLE INITIALLY DEFERRED,
		time INTEGER NOT NULL,
		message TEXT NOT NULL,
		first_parent BLOB REFERENCES commits(hash) DEFERRABLE INITIALLY DEFERRED,
		parents BLOB NOT NULL,
		PRIMARY KEY (tract, seq),
		CHECK (content IS NULL OR content_id IS NOT NULL)
	) WITHOUT ROWID;
	CREATE INDEX commits_first_parent ON commits(first_parent) WHERE first_parent IS NOT NULL;
	CREATE INDEX commits_content_id ON commits(content_id) WHERE content_id IS NOT NULL;
	CREATE INDEX commits_edit_target ON commits(edit_target) WHERE edit_target IS NOT NULL;
	CREATE TABLE merge_parents (
		child BLOB NOT NULL REFERENCES commits(hash) ON DELETE CASCADE,
		position INTEGER NOT NULL,
		parent BLOB NOT NULL REFERENCES commits(hash) DEFERRABLE INITIALLY DEFERRED,
		PRIMARY KEY (child, position)
	) WITHOUT ROWID;
	CREATE INDEX merge_parents_parent ON merge_parents(parent);
	CREATE TABLE refs (
		tract TEXT NOT NULL,
		name TEXT NOT NULL,
		value TEXT NOT NULL,
		PRIMARY KEY (tract, name)
	) WITHOUT ROWID;
	CREATE TABLE reflog (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		tract TEXT NOT NULL,
		ref TEXT NOT NULL,
		old TEXT NOT NULL,
		new TEXT NOT NULL,
		operation TEXT NOT NULL,
		time INTEGER NOT NULL
	);
	CREATE INDEX reflog_time ON reflog(time);
	CREATE TABLE annotations (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		viewer TEXT NOT NULL,
		commit_hash BLOB NOT NULL REFERENCES commits(hash) ON DELETE CASCADE,
		priority TEXT NOT NULL,
		reason TEXT NOT NULL,
		time INTEGER NOT NULL,
		head BLOB
	);
	CREATE INDEX annotations_commit ON annotations(commit_hash);`,
	positionsMigration,
	settingsSchema(),
	// Version 4: commit metadata and the full-text index (search.go).
	searchMigration,
	// Version 5: compile checkpoints (views.go).
	viewsMigration,
	// Version 6: a checkpoint's messages apart from its data (views.go).
	viewPartsMigration,
	// Version 7: fewer pages a commit (pending.go).
	leanCommitMigration,
	// Version 8: a checkpoint's messages in pieces (views.go).
	viewPiecesMigration,
}

// positionsMigration is version 2: each commit's place in the DAG
// (tract.Position), filled in for the commits already stored.
const positionsMigration = `ALTER TABLE commits ADD COLUMN gen INTEGER;
	ALTER TABLE commits ADD COLUMN depth INTEGER;
	ALTER TABLE commits ADD COLUMN jump BLOB;`

// settingsSchema is version 3: per-tract settings (tract config).
func settingsSchema() string {
	return `CREATE TABLE settings (
		tract TEXT NOT NULL,
		key TEXT NOT NULL,
		value TEXT NOT NULL,
		PRIMARY KEY (tract, key)
	) WITHOUT ROWID;`
}

// SchemaVersion is the schema version this package writes.
var SchemaVersion = len(migrations)

// checkSchema fails unless db holds the schema this package writes; it
// writes nothing.
func checkSchema(ctx context.Context, db *sql.DB) error {
	var version int
	err := db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	if err != nil {
		// What a writable open would find (foundSchema only reads): a
		// file with lineage's tables and no readable version is damaged,
		// one with other tables is not a store.
		if ferr := foundSchema(ctx, db, err); ferr != nil {
			return ferr
		}
	}
	switch {
	case err != nil && strings.Contains(err.Error(), "no such table"):
		return errors.New("not a lineage store (no lineage schema in the file)")
	case err == sql.ErrNoRows:
		return errors.New("not a lineage store (no schema version)")
	case err != nil:
		return err
	case version < len(migrations):
		return oldSchemaError{version: version}
	case version > len(migrations):
		return fmt.Errorf("schema version %d is newer than this lineage understands (%d): upgrade lineage", version, len(migrations))
	}
	return nil
}

// migrate brings the schema up to date in one IMMEDIATE transaction (so
// concurrent opens migrate once) and returns the version it found.
func migrate(ctx context.Context, db *sql.DB) (from int, err error) {
	// The common case, an up-to-date schema, takes no write lock.
	var current int
	err = db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&current)
	if err == nil && current == len(migrations) {
		return current, nil
	}
	if err := foundSchema(ctx, db, err); err != nil {
		return 0, err
	}
	defer func() {
		// A store this user cannot write (another user's, say) is not
		// migrated here: its owner has to.
		if err != nil && current > 0 && current < len(migrations) && strings.Contains(err.Error(), "readonly") {
			err = oldSchemaError{version: current, readOnly: true}
		}
	}()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return 0, err
	}
	var version int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	switch {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return 0, err
		}
	case err != nil:
		return 0, err
	}
	if version > len(migrations) {
		return 0, fmt.Errorf("schema version %d is newer than this lineage understands (%d): upgrade lineage", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return 0, fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
		var backfill func(context.Context, *sql.Tx) error
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
	if version < len(migrations) {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
			return 0, err
		}
	}
	return version, tx.Commit()
}

// lineageTables are tables every lineage schema has had.
var lineageTables = []string{"tracts", "blobs", "commits", "refs"}

// foundSchema checks what a writable open found when the schema version
// did not read as current (readErr): a new or empty file gets a schema; a
// file holding lineage's tables without a readable version is damaged, and
// one holding other tables is not a lineage store (neither is written).
func foundSchema(ctx context.Context, db *sql.DB, readErr error) error {
	if readErr == nil {
		return nil
	}
	msg := readErr.Error()
	if !strings.Contains(msg, "no such table") && readErr != sql.ErrNoRows {
		if strings.Contains(msg, "converting") || strings.Contains(msg, "Scan error") {
			return fmt.Errorf("%w: its schema version is not a number (%v)", tract.ErrDamaged, readErr)
		}
		return readErr // damaged(…) in Open names a malformed file
	}
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name <> 'schema_version' ORDER BY name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(tables) == 0 {
		return nil
	}
	for _, t := range tables {
		if slices.Contains(lineageTables, t) {
			return fmt.Errorf("%w: it holds lineage's tables but no schema version (run 'lineage tract verify'; restore it from a backup or an export)", tract.ErrDamaged)
		}
	}
	if len(tables) > 5 {
		tables = append(tables[:5], "…")
	}
	return fmt.Errorf("not a lineage store: the file holds other tables (%s)", strings.Join(tables, ", "))
}
