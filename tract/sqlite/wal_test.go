package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// createRepo creates a store at p with tract main; the caller closes it.
func createRepo(t *testing.T, p string) (*sqlite.Store, *tract.Repo) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		s.Close()
		t.Fatal(err)
	}
	return s, r
}

// bigWAL writes a store whose WAL holds an import of n messages nobody
// checkpointed (a writer killed before closing), under dir.
func bigWAL(t *testing.T, dir string, n int) string {
	t.Helper()
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(ctx, src, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.DB().ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	// The copy is what a killed writer leaves: the WAL not folded back.
	dst := filepath.Join(dir, "lineage.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(src + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func walSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p + "-wal")
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestReadOnlyOpenTruncatesBigWAL: a read command that finds a large WAL
// (here 20k messages a killed writer left) folds it back and truncates it
// when the file is writable, so neither it nor later reads consult a big
// WAL index; the history is all there.
func TestReadOnlyOpenTruncatesBigWAL(t *testing.T) {
	p := bigWAL(t, t.TempDir(), 20_000)
	if got := walSize(t, p); got < 8<<20 {
		t.Fatalf("WAL of %d bytes: the test needs a big one", got)
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := walSize(t, p); got > 4<<20 {
		t.Fatalf("WAL of %d bytes after a read-only open, want at most 4 MiB", got)
	}
	log, err := tract.New(s, tract.Options{}).Log(ctx, "main", tract.LogOptions{})
	if err != nil || len(log) != 20_000 {
		t.Fatalf("log: %d entries, %v; want 20000", len(log), err)
	}
}

// TestCloseTruncatesBigWAL: a writable handle leaves no WAL behind it even
// while another handle (a reader in another process) keeps the database
// open, so SQLite's own last-close cleanup cannot run.
func TestCloseTruncatesBigWAL(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, r := createRepo(t, p)
	other, err := sqlite.Open(ctx, p, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Tracts(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, 20_000)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	before := walSize(t, p)
	s.Close()
	if got := walSize(t, p); got != 0 {
		t.Fatalf("WAL of %d bytes (%d before close), want it emptied", got, before)
	}
	// A small write too (a compile's cache writer storing a checkpoint
	// beside the read-only handle): every later process would otherwise
	// read the whole WAL to rebuild its index.
	w, err := sqlite.Open(ctx, p, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tract.New(w, tract.Options{}).Commit(ctx, "main", reqs[0]); err != nil {
		t.Fatal(err)
	}
	if walSize(t, p) == 0 {
		t.Fatal("the commit left no WAL: the test checks nothing")
	}
	w.Close()
	if got := walSize(t, p); got != 0 {
		t.Fatalf("WAL of %d bytes after a one-commit writer closed, want it emptied", got)
	}
}
