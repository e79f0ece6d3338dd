package fsx

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// aged sets the modification times of paths an hour back, out of the
// racy window.
func aged(t *testing.T, paths ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// A trail stays fresh while nothing it noted changes, and goes stale on
// every kind of change to a noted path: a file's content (same size, its
// modification time set back), a file replaced, removed or its mode
// changed, a name probed that comes to exist (also under a directory that
// did not exist), a directory listed that gains an entry, and a symbolic
// link pointed elsewhere.
func TestTrailNoticesEveryChange(t *testing.T) {
	type world struct{ dir, file, listed, missing, deep, link string }
	setup := func(t *testing.T) world {
		dir := t.TempDir()
		w := world{dir: dir, file: filepath.Join(dir, "AGENTS.md"), listed: filepath.Join(dir, "rules"),
			missing: filepath.Join(dir, "sub", "AGENTS.md"), deep: filepath.Join(dir, "x", "y", "AGENTS.md"),
			link: filepath.Join(dir, "link.md")}
		platformtest.WriteTree(t, dir, map[string]string{"AGENTS.md": "root rules\n", "rules/a.md": "a\n", "sub/.keep": "",
			"other.md": "other rules\n", "third.md": "third rules\n"})
		aged(t, w.file, filepath.Join(dir, "rules", "a.md"), w.listed, filepath.Join(dir, "sub"), filepath.Join(dir, "other.md"),
			filepath.Join(dir, "third.md"), dir)
		return w
	}
	note := func(t *testing.T, w world, withLink bool) *Trail {
		tr := NewTrail()
		if withLink {
			// A link's own time cannot be set back portably: the trail's
			// clock moves on instead.
			tr.now = func() time.Time { return time.Now().Add(time.Hour) }
		}
		tr.NoteAll(w.file, w.listed, w.missing, w.deep)
		if withLink {
			tr.Note(w.link)
		}
		if !tr.Fresh() {
			t.Fatalf("a trail noted on unchanged, aged files is not fresh")
		}
		return tr
	}
	changes := []struct {
		name   string
		change func(t *testing.T, w world)
		linux  bool
	}{
		{"content, same size, time set back", func(t *testing.T, w world) {
			if err := os.WriteFile(w.file, []byte("ROOT RULES\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			aged(t, w.file)
		}, true},
		{"content", func(t *testing.T, w world) {
			if err := os.WriteFile(w.file, []byte("root rules, longer\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			aged(t, w.file)
		}, false},
		{"replaced", func(t *testing.T, w world) {
			if err := os.Rename(filepath.Join(w.dir, "other.md"), w.file); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"removed", func(t *testing.T, w world) {
			if err := os.Remove(w.file); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"mode", func(t *testing.T, w world) {
			// Read-only: the one mode bit Windows has too.
			if err := os.Chmod(w.file, 0o444); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(w.file, 0o644) }) // Windows removes no read-only file
		}, false},
		{"probed name made", func(t *testing.T, w world) {
			if err := os.WriteFile(w.missing, []byte("sub rules\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			aged(t, w.missing, filepath.Dir(w.missing))
		}, false},
		{"probed name made under new directories", func(t *testing.T, w world) {
			platformtest.WriteTree(t, w.dir, map[string]string{"x/y/AGENTS.md": "deep\n"})
		}, false},
		{"listed directory gains an entry", func(t *testing.T, w world) {
			platformtest.WriteTree(t, w.listed, map[string]string{"b.md": "b\n"})
			aged(t, w.listed, filepath.Join(w.listed, "b.md"))
		}, false},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			if c.linux && runtime.GOOS != "linux" {
				t.Skip("a same-size write with its time set back shows only in Linux's change time, which the trail reads there only")
			}
			w := setup(t)
			tr := note(t, w, false)
			c.change(t, w)
			if tr.Fresh() {
				t.Fatalf("after %s the trail is still fresh", c.name)
			}
		})
	}
	t.Run("symbolic link pointed elsewhere", func(t *testing.T) {
		w := setup(t)
		platformtest.Symlink(t, filepath.Join(w.dir, "other.md"), w.link)
		tr := note(t, w, true)
		if err := os.Remove(w.link); err != nil {
			t.Fatal(err)
		}
		platformtest.Symlink(t, filepath.Join(w.dir, "third.md"), w.link)
		if tr.Fresh() {
			t.Fatal("after the link moved the trail is still fresh")
		}
	})
}

// What changed less than RacyWindow before it was noted cannot be told
// apart from a later change in the same clock tick: such a trail is never
// fresh. A nil trail notes nothing and is never fresh.
func TestTrailRacyAndNil(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(p, []byte("rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := NewTrail()
	tr.Note(p)
	if tr.Fresh() {
		t.Error("a file written just now makes a fresh trail")
	}
	aged(t, p)
	tr = NewTrail()
	tr.Note(p)
	if !tr.Fresh() || tr.Len() != 1 {
		t.Errorf("aged: fresh %v, %d paths", tr.Fresh(), tr.Len())
	}
	var none *Trail
	none.Note(p)
	if none.Fresh() || none.Len() != 0 {
		t.Error("a nil trail is fresh or holds paths")
	}
}

// BenchmarkTrailFresh checks a trail of 60 paths, a third of them
// existing (an AGENTS.md chain's probes, as a context compile makes).
func BenchmarkTrailFresh(b *testing.B) {
	dir := b.TempDir()
	tr := NewTrail()
	tr.now = func() time.Time { return time.Now().Add(time.Hour) }
	for i := range 20 {
		p := filepath.Join(dir, "d"+string(rune('a'+i)))
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
		tr.NoteAll(p, filepath.Join(p, "AGENTS.md"), filepath.Join(p, ".git"))
	}
	b.ReportAllocs()
	for b.Loop() {
		if !tr.Fresh() {
			b.Fatal("stale")
		}
	}
}
