package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestMigrateDamagedV1: a writable open (what 'tract migrate' does) of a
// released store that is damaged says so (tract.ErrDamaged), whatever the
// damage: a garbage header, a truncated file, a zeroed first page, flipped
// bytes, a schema version that is gone or not a number; it never offers to
// create a store, and a file holding other tables is not taken for one.
func TestMigrateDamagedV1(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, p string)
	}{
		{"header", func(t *testing.T, p string) { patch(t, p, 0, bytes.Repeat([]byte("x"), 100)) }},
		{"truncated", func(t *testing.T, p string) { must(t, os.Truncate(p, 3*4096)) }},
		{"first page", func(t *testing.T, p string) { patch(t, p, 100, make([]byte, 4096-100)) }},
		{"flipped", func(t *testing.T, p string) { patch(t, p, 2*4096+50, bytes.Repeat([]byte{0xff}, 3000)) }},
		{"no version row", func(t *testing.T, p string) { execRaw(t, p, `DELETE FROM schema_version`) }},
		{"no version table", func(t *testing.T, p string) { execRaw(t, p, `DROP TABLE schema_version`) }},
		{"version not a number", func(t *testing.T, p string) { execRaw(t, p, `UPDATE schema_version SET version = 'x'`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A read command opens read-only: it says the same.
			for _, ro := range []bool{false, true} {
				p := copyFixture(t)
				tc.damage(t, p)
				before, _ := os.ReadFile(p)
				s, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: ro})
				if err == nil {
					s.Close()
					t.Fatalf("read-only %v: a damaged store opened", ro)
				}
				if !errors.Is(err, tract.ErrDamaged) || strings.Contains(err.Error(), "init") || !strings.Contains(err.Error(), p) {
					t.Fatalf("read-only %v: error %v; want one naming the file and saying it is damaged", ro, err)
				}
				if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
					t.Errorf("read-only %v: the damaged file was written", ro)
				}
			}
		})
	}
	t.Run("foreign", func(t *testing.T) {
		p := copyFixture(t)
		execRaw(t, p, `CREATE TABLE notes (x); DROP TABLE schema_version; DROP TABLE annotations; DROP TABLE reflog; DROP TABLE refs;
			DROP TABLE merge_parents; DROP TABLE commits; DROP TABLE blobs; DROP TABLE tracts;`)
		_, err := sqlite.Open(ctx, p, sqlite.Options{})
		if err == nil || !strings.Contains(err.Error(), "not a lineage store: the file holds other tables (notes)") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestMigrateNotWritable: a released store this user cannot write (another
// user's; here made read-only to the writable open) is not migrated, and
// the error says its owner must run 'lineage tract migrate', not "attempt
// to write a readonly database".
func TestMigrateNotWritable(t *testing.T) {
	p := copyFixture(t)
	before, _ := os.ReadFile(p)
	defer sqlite.SetTestDSN("&_pragma=query_only(1)")()
	_, err := sqlite.Open(context.Background(), p, sqlite.Options{})
	want := fmt.Sprintf("store %s: schema version 1 is older than this lineage's (%d), and this user cannot write it: its owner must run 'lineage tract migrate' once to upgrade it",
		p, sqlite.SchemaVersion)
	if !errors.Is(err, tract.ErrOldSchema) || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("the store was written")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func patch(t *testing.T, p string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	must(t, err)
	defer f.Close()
	_, err = f.WriteAt(b, at)
	must(t, err)
}

// execRaw changes the file behind lineage's back.
func execRaw(t *testing.T, p, query string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+p)
	must(t, err)
	defer db.Close()
	_, err = db.Exec(query)
	must(t, err)
}
