package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestReadOnlyNeverWrites: a read-only open of an empty or foreign file is
// an error naming it and leaves the file as it was; on a store it refuses
// writes even where the file system would allow them (tests often run as
// root, for whom permissions do not stop a write).
func TestReadOnlyNeverWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, data := range map[string]string{"empty.db": "", "notes.db": "not a database, just text\n"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want an error naming the file", name, err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Errorf("%s: a read-only open changed the file to %q", name, got)
		}
	}
	if _, err := sqlite.Open(ctx, filepath.Join(dir, "missing.db"), sqlite.Options{ReadOnly: true, Create: true}); !errors.Is(err, tract.ErrNotFound) {
		t.Errorf("read-only open of a missing file: %v, want not found (never created)", err)
	}

	p := filepath.Join(dir, "lineage.db")
	w, err := sqlite.Open(ctx, p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	r := tract.New(w, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, _ := os.ReadFile(p)
	ro, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := tract.New(ro, tract.Options{}).NewTract(ctx, "x"); !errors.Is(err, tract.ErrReadOnly) {
		t.Fatalf("write through a read-only store: %v", err)
	}
	// Below the domain too: the connection itself is read-only.
	if _, err := ro.DB().ExecContext(ctx, `DELETE FROM tracts`); err == nil {
		t.Fatal("a read-only connection executed a DELETE")
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Fatal("the file changed under a read-only handle")
	}
}
