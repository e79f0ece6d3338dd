package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
)

// v1Shape turns a store back into schema version 1: no positions,
// settings, commit metadata or search index.
const v1Shape = `DROP TABLE blob_words;
	DROP TABLE settings;
	ALTER TABLE commits DROP COLUMN meta, DROP COLUMN gen, DROP COLUMN depth, DROP COLUMN jump;
	UPDATE schema_version SET version = 1;`

// TestUpgradeFromV1: a history turned back into a v1 store and opened
// read-only is migrated with every commit's position, and reads through
// positions cost O(touched) on it.
func TestUpgradeFromV1(t *testing.T) {
	server(t)
	storetest.RunUpgrade(t, newStore, func(t *testing.T, s tract.Store) tract.Store {
		st := s.(*postgres.Store)
		if _, err := st.Pool().Exec(context.Background(), v1Shape); err != nil {
			t.Fatal(err)
		}
		up, err := st.ReopenReadOnly()
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		return up
	})
}

// TestReadOnlyRoleOnOldSchema: a role that may only read an old schema
// gets an error naming the database, the version and what to do, and the
// schema stays as it was.
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
	if err == nil {
		t.Fatal("a read-only role opened a v1 schema; want an error")
	}
	for _, want := range []string{role + "@", "schema version 1 is older", "cannot migrate it", "as a role that may alter its tables"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var version int
	if err := s.Pool().QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil || version != 1 {
		t.Errorf("schema version %d (%v) after the refused migration, want 1", version, err)
	}
}
