package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestReadAtRestOnAFullDisk fills a small tmpfs holding a store at rest
// (its WAL folded back): a read-only open, which cannot size the WAL index
// there (SQLite's "disk I/O error (4874)"), still reads every commit. A
// store whose WAL holds commits is refused with the error rather than read
// without them. It needs root to mount the tmpfs and skips otherwise.
func TestReadAtRestOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		if os.Getenv("LINEAGE_REQUIRE_FULLDISK") == "1" {
			t.Fatalf("LINEAGE_REQUIRE_FULLDISK=1 but a tmpfs cannot be mounted: %v", err)
		}
		t.Skipf("mounting a small tmpfs needs root (the full-disk test is skipped): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	ctx := context.Background()
	p := filepath.Join(dir, "lineage.db")
	w, err := sqlite.Open(ctx, p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	r := tract.New(w, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three"} {
		if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(dir, "fill"))
	for range 2 { // the second open meets the files the first one left
		ro, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("read-only open on a full disk: %v", err)
		}
		res, err := tract.New(ro, tract.Options{}).Compile(ctx, "main", tract.CompileOptions{})
		ro.Close()
		if err != nil || len(res.Messages) != 3 || res.Messages[2].Content != "three" {
			t.Fatalf("compile on a full disk: %v, %+v", err, res.Messages)
		}
	}
	// A WAL that holds commits: reading the file alone would miss them.
	if err := os.Remove(filepath.Join(dir, "fill")); err != nil {
		t.Fatal(err)
	}
	os.Remove(p + "-shm")
	if err := os.WriteFile(p+"-wal", []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(dir, "fill"))
	if _, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("a store whose WAL holds data, on a full disk: %v, want an error naming it (not an immutable read without the WAL)", err)
	}
}

// fill writes p until the file system is full.
func fill(t *testing.T, p string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}
