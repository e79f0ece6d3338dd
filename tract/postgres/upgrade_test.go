package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
)

// v1Shape turns a store back into schema version 1: no positions,
// settings, commit metadata or search index.
const v1Shape = `DROP TABLE compiled_view_pieces;
	DROP TABLE compiled_views;
	DROP INDEX commits_tract_time;
	DROP TABLE blob_words;
	DROP TABLE settings;
	ALTER TABLE commits DROP COLUMN meta, DROP COLUMN gen, DROP COLUMN depth, DROP COLUMN jump;
	UPDATE schema_version SET version = 1;`

// TestUpgradeFromV1: a history turned back into a v1 store is refused by
// a read-only open (tract.ErrOldSchema), migrated by a writable one with
// every commit's position, and reads through positions cost O(touched) on
// it, opened read-only.
func TestUpgradeFromV1(t *testing.T) {
	server(t)
	storetest.RunUpgrade(t, newStore, func(t *testing.T, s tract.Store) tract.Store {
		st := s.(*postgres.Store)
		if _, err := st.Pool().Exec(context.Background(), v1Shape); err != nil {
			t.Fatal(err)
		}
		if r, err := st.ReopenReadOnly(); !errors.Is(err, tract.ErrOldSchema) {
			if err == nil {
				r.Close()
			}
			t.Fatalf("read-only open of a v1 schema: %v; want tract.ErrOldSchema", err)
		}
		w, err := st.Reopen()
		if err != nil {
			t.Fatal(err)
		}
		if from, to := w.(*postgres.Store).Migrated(); from != 1 || to != postgres.SchemaVersion {
			t.Fatalf("Migrated() = %d, %d; want 1, %d", from, to, postgres.SchemaVersion)
		}
		w.Close()
		up, err := st.ReopenReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		return up
	})
}

// TestReadOnlyRoleOnOldSchema: a read-only open of an old schema, by a
// role that may only read it, is tract.ErrOldSchema naming the database
// (never the password), the version and what to do; the role's writable
// open cannot migrate it either; the schema stays as it was until its
// owner migrates it, and then the role reads it.
func TestReadOnlyRoleOnOldSchema(t *testing.T) {
	ctx := context.Background()
	cfg, schema := freshSchema(t)
	s := openIn(t, cfg, postgres.Options{Create: true})
	if _, _, err := tract.New(s, tract.Options{}).Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, v1Shape); err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	rand.Read(b[:])
	role := "lineage_reader_" + hex.EncodeToString(b[:])
	admin := server(t)
	adminExec(t, admin, `CREATE ROLE `+role+` LOGIN PASSWORD 'reader'`,
		`GRANT USAGE ON SCHEMA `+schema+` TO `+role,
		`GRANT SELECT ON ALL TABLES IN SCHEMA `+schema+` TO `+role)
	t.Cleanup(func() { adminExec(t, admin, `DROP OWNED BY `+role, `DROP ROLE `+role) })
	rc := cfg.Copy()
	rc.ConnConfig.User, rc.ConnConfig.Password = role, "reader"
	_, err := postgres.OpenConfig(ctx, rc, postgres.Options{ReadOnly: true})
	if !errors.Is(err, tract.ErrOldSchema) {
		t.Fatalf("a read-only open of a v1 schema: %v; want tract.ErrOldSchema", err)
	}
	want := fmt.Sprintf("store %s@%s:%d/%s: schema version 1 is older than this lineage's (%d): run 'lineage tract migrate' once to upgrade it (any write command also does)",
		role, rc.ConnConfig.Host, rc.ConnConfig.Port, rc.ConnConfig.Database, postgres.SchemaVersion)
	if err.Error() != want {
		t.Errorf("error %q\nwant   %q", err, want)
	}
	if w, err := postgres.OpenConfig(ctx, rc, postgres.Options{}); err == nil {
		w.Close()
		t.Error("a role that may only read migrated a v1 schema")
	}
	var version int
	if err := s.Pool().QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil || version != 1 {
		t.Errorf("schema version %d (%v) after the refused opens, want 1", version, err)
	}
	w := openIn(t, cfg, postgres.Options{})
	if from, to := w.Migrated(); from != 1 || to != postgres.SchemaVersion {
		t.Errorf("the owner's open: Migrated() = %d, %d; want 1, %d", from, to, postgres.SchemaVersion)
	}
	// The migration made tables the reader was never granted.
	adminExec(t, admin, `GRANT SELECT ON ALL TABLES IN SCHEMA `+schema+` TO `+role)
	r, err := postgres.OpenConfig(ctx, rc, postgres.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the reader after the migration: %v", err)
	}
	defer r.Close()
	if _, err := tract.New(r, tract.Options{}).Log(ctx, "main", tract.LogOptions{}); err != nil && !errors.Is(err, tract.ErrNoCommits) {
		t.Errorf("the reader's log after the migration: %v", err)
	}
}

// v6Shape turns a store back into schema version 6: a checkpoint's
// messages in one column.
const v6Shape = `DROP TABLE compiled_view_pieces;
	ALTER TABLE compiled_views DROP COLUMN piece_index, ADD COLUMN messages bytea NOT NULL DEFAULT '\x00';
	UPDATE schema_version SET version = 6;`

// TestUpgradeFromV6: a store of schema version 6 holding a checkpoint (its
// messages in one column) is migrated by a writable open; the old
// checkpoint goes (a cache), the next compile is the one before and stores
// its checkpoint in pieces, and verify finds nothing.
func TestUpgradeFromV6(t *testing.T) {
	server(t)
	ctx := context.Background()
	s := newStore(t).(*postgres.Store)
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, v6Shape); err != nil {
		t.Fatal(err)
	}
	w, err := s.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s.Close()
	if from, to := w.(*postgres.Store).Migrated(); from != 6 || to != postgres.SchemaVersion {
		t.Fatalf("Migrated() = %d, %d; want 6, %d", from, to, postgres.SchemaVersion)
	}
	main, err := tract.New(w, tract.Options{}).Tract(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CompiledView(ctx, main.ID, "o200k_base", tract.ViewHeader); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("the old checkpoint after the migration: %v, want none", err)
	}
	for i := range 2 {
		got, err := tract.New(w, tract.Options{}).CompileCold(ctx, "main", tract.CompileOptions{})
		if err != nil || got.Tokens != want.Tokens || len(got.Messages) != len(want.Messages) {
			t.Fatalf("compile %d after the migration: %d tokens, %d messages, %v; want %d, %d", i+1, got.Tokens, len(got.Messages), err, want.Tokens, len(want.Messages))
		}
	}
	cv, err := w.CompiledView(ctx, main.ID, "o200k_base", tract.ViewMessages)
	if err != nil || len(cv.Index) == 0 || len(cv.Messages) == 0 {
		t.Fatalf("the checkpoint stored after the migration: %d bytes of index, %d of messages, %v", len(cv.Index), len(cv.Messages), err)
	}
	if rep, err := tract.New(w, tract.Options{}).Verify(ctx); err != nil || len(rep.Damage) != 0 {
		t.Fatalf("verify after the migration: %+v, %v", rep.Damage, err)
	}
}
