package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// TestMain lets the test binary act as a writer process on a shared file,
// or as a first reader of an old store (TestConcurrentUpgrade).
func TestMain(m *testing.M) {
	if db := os.Getenv(envUpgradeReader); db != "" {
		if err := readOldStore(db); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	storetest.ProcessMain(m, func(ctx context.Context, db string) (tract.Store, error) {
		return sqlite.Open(ctx, db, sqlite.Options{})
	})
}

// TestProcesses: 8 processes × 100 appends on one branch, and appends while
// another process loops merge-from and gc, all on one SQLite file.
func TestProcesses(t *testing.T) {
	storetest.RunProcesses(t, storetest.Processes{
		New: func(t *testing.T) (string, tract.Store) {
			db, _, s := newDB(t)
			return db, s
		},
	})
}

func newDB(t *testing.T) (string, *tract.Repo, tract.Store) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(context.Background(), db, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, r, s
}
