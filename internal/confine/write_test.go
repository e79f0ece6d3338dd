package confine

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// TestWriteFileStaysInside: a write inside a root lands atomically; one
// outside, or through a symbolic link leading outside, is refused with
// nothing written anywhere.
func TestWriteFileStaysInside(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	r, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "data\n"); return err }
	if err := r.WriteFile(filepath.Join(in, "a.jsonl"), 0o644, write); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(in, "a.jsonl")); err != nil || string(b) != "data\n" {
		t.Fatalf("written %q, %v", b, err)
	}
	if err := r.WriteFile(filepath.Join(out, "b.jsonl"), 0o644, write); !errors.Is(err, ErrOutside) {
		t.Fatalf("write outside: %v, want outside", err)
	}
	failing := func(w io.Writer) error { return errors.New("boom") }
	if err := r.WriteFile(filepath.Join(in, "d.jsonl"), 0o644, failing); err == nil {
		t.Fatal("a failed write succeeded")
	}
	if ents, _ := os.ReadDir(in); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	// Last, as it skips where the OS makes no symbolic links.
	platformtest.Symlink(t, out, filepath.Join(in, "link"))
	if err := r.WriteFile(filepath.Join(in, "link", "c.jsonl"), 0o644, write); !errors.Is(err, ErrOutside) {
		t.Fatalf("write through the link: %v, want outside", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("written outside: %v", ents)
	}
}
