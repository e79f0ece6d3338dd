package instructions

import (
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestResolveNewThenNothing(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "a/AGENTS.md": "a", "feature/AGENTS.md": "f", "feature/sub/AGENTS.md": "s"})
	s, _ := Start(opts(filepath.Join(root, "a")))
	r := s.Resolve(filepath.Join(root, "feature", "sub", "main.go"))
	want := []string{"new " + filepath.Join(root, "feature/AGENTS.md"), "new " + filepath.Join(root, "feature/sub/AGENTS.md")}
	if diff := cmp.Diff(want, reasons(r.Files)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r.ResolvedPath != filepath.Join(root, "feature/sub") {
		t.Errorf("resolved path = %s", r.ResolvedPath)
	}
	if again := s.Resolve(filepath.Join(root, "feature", "sub", "main.go")); len(again.Files) != 0 {
		t.Errorf("second identical call returned %v", reasons(again.Files))
	}
	fi, _ := os.Stat(filepath.Join(root, "feature/AGENTS.md"))
	if r.Files[0].MtimeMs != fi.ModTime().UnixMilli() || r.Files[0].SizeBytes != 1 {
		t.Errorf("file = %+v, want mtimeMs %d and size 1", r.Files[0], fi.ModTime().UnixMilli())
	}
}

func TestResolveUpdatedByMtime(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r"})
	s, _ := Start(opts(root))
	setMtime(t, filepath.Join(root, "AGENTS.md"), time.Now().Add(time.Hour))
	r := s.Resolve(root)
	if diff := cmp.Diff([]string{"updated " + filepath.Join(root, "AGENTS.md")}, reasons(r.Files)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The upstream TypeScript compares mtimes only; a size change with the old
// mtime restored must still count as updated.
func TestBeyondReferenceSizeChangeWithMtimeRestored(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "short"})
	p := filepath.Join(root, "AGENTS.md")
	old := time.Date(2025, 2, 8, 0, 13, 20, 123456789, time.UTC)
	setMtime(t, p, old)
	s, _ := Start(opts(root))
	write(t, p, "much longer now")
	setMtime(t, p, old)
	r := s.Resolve(root)
	if diff := cmp.Diff([]string{"updated " + p}, reasons(r.Files)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r.Files[0].MtimeMs != old.UnixMilli() || r.Files[0].SizeBytes != 15 {
		t.Errorf("file = %+v", r.Files[0])
	}
}

func TestResolveDeletedIsForgottenAndRecreatedIsNew(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "a/AGENTS.md": "a"})
	p := filepath.Join(root, "a/AGENTS.md")
	s, _ := Start(opts(filepath.Join(root, "a")))
	os.Remove(p)
	if r := s.Resolve(filepath.Join(root, "a/x")); len(r.Files) != 0 {
		t.Fatalf("deleted file reported: %v", reasons(r.Files))
	}
	for _, f := range s.State().Files {
		if f.Path == p {
			t.Fatalf("deleted file still known")
		}
	}
	write(t, p, "a")
	if r := s.Resolve(filepath.Join(root, "a/x")); !cmp.Equal(reasons(r.Files), []string{"new " + p}) {
		t.Errorf("recreated = %v, want new", reasons(r.Files))
	}
}

func TestResolvePerCallCapDefersTheRest(t *testing.T) {
	root := testRepo(t, map[string]string{"a/AGENTS.md": "1", "a/b/AGENTS.md": "2", "a/b/c/AGENTS.md": "3", "a/b/c/d/AGENTS.md": "4", "a/b/c/d/e/AGENTS.md": "5"})
	s, _ := Start(opts(root, func(c *Config) { c.Resolver.MaxFilesPerResolve = 2 }))
	target := filepath.Join(root, "a/b/c/d/e")
	var got [][]string
	for range 4 {
		got = append(got, paths(s.Resolve(target).Files))
	}
	want := [][]string{
		{filepath.Join(root, "a/AGENTS.md"), filepath.Join(root, "a/b/AGENTS.md")},
		{filepath.Join(root, "a/b/c/AGENTS.md"), filepath.Join(root, "a/b/c/d/AGENTS.md")},
		{filepath.Join(root, "a/b/c/d/e/AGENTS.md")},
		{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A refused resolution registers nothing: the same files, for the same
// reasons, come again; an accepted one registers them.
func TestResolveIfRefusedLeavesTheFilesToReport(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "a/AGENTS.md": "a"})
	s, _ := Start(opts(root))
	setMtime(t, filepath.Join(root, "AGENTS.md"), time.Now().Add(time.Hour))
	target := filepath.Join(root, "a", "x.go")
	want := []string{"updated " + filepath.Join(root, "AGENTS.md"), "new " + filepath.Join(root, "a/AGENTS.md")}
	for range 2 {
		r, ok := s.ResolveIf(target, func(r Resolution) bool { return false })
		if ok {
			t.Fatal("refused resolution reported as taken")
		}
		if diff := cmp.Diff(want, reasons(r.Files)); diff != "" {
			t.Fatalf("refused (-want +got):\n%s", diff)
		}
	}
	r, ok := s.ResolveIf(target, func(r Resolution) bool { return true })
	if diff := cmp.Diff(want, reasons(r.Files)); !ok || diff != "" {
		t.Fatalf("accepted %v (-want +got):\n%s", ok, diff)
	}
	if again := s.Resolve(target); len(again.Files) != 0 {
		t.Errorf("after an accepted resolve: %v", reasons(again.Files))
	}
}

func TestResolveOutsideRootIsEmpty(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r"})
	outside := makeTree(t, t.TempDir(), map[string]string{"AGENTS.md": "o"})
	s, _ := Start(opts(root))
	for _, target := range []string{outside, filepath.Join(outside, "x.go"), root + "/../elsewhere", "/", root + "x/AGENTS.md"} {
		r := s.Resolve(target)
		if len(r.Files) != 0 {
			t.Errorf("target %s outside the root gave %v", target, paths(r.Files))
		}
	}
}

func TestResolvePathNormalization(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "a/AGENTS.md": "a", "a/b/AGENTS.md": "b", "a/b/c/AGENTS.md": "c", "a/file.go": "package a"})
	tests := []struct {
		name, target, wantDir string
	}{
		{"relative dir", "b", "a/b"},
		{"dot prefix", "./b/", "a/b"},
		{"trailing slash on a directory", "b/c/", "a/b/c"},
		{"dot dot", "../a/b/../b", "a/b"},
		{"file means its parent", "file.go", "a"},
		{"missing file means its parent", "b/new.go", "a/b"},
		{"missing directory with a slash means its parent", "b/newdir/", "a/b"},
		{"absolute with dots", root + "/a/./b//c/..", "a/b"},
		{"dot", ".", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The working directory is root/a; the initial chain knows root
			// and root/a, so what is reported shows the resolved directory.
			s, _ := Start(opts(filepath.Join(root, "a")))
			r := s.Resolve(tt.target)
			if want := filepath.Join(root, tt.wantDir); r.ResolvedPath != want {
				t.Errorf("resolved path = %s, want %s", r.ResolvedPath, want)
			}
			if r.TargetPath != tt.target {
				t.Errorf("target path = %s", r.TargetPath)
			}
			var want []string
			for _, d := range []string{"a/b", "a/b/c"} {
				if len(d) <= len(tt.wantDir) {
					want = append(want, filepath.Join(root, d, "AGENTS.md"))
				}
			}
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, paths(r.Files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

// The upstream TypeScript identifies files by path string; the same
// physical file reached through a symlinked directory must not be reported
// twice.
func TestBeyondReferenceIdentityNotPathString(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "real/AGENTS.md": "real", "real/sub/AGENTS.md": "sub"})
	platformtest.Symlink(t, filepath.Join(root, "real"), filepath.Join(root, "link"))
	s, _ := Start(opts(root))
	first := s.Resolve(filepath.Join(root, "real/sub/x.go"))
	if len(first.Files) != 2 {
		t.Fatalf("first = %v", reasons(first.Files))
	}
	if r := s.Resolve(filepath.Join(root, "link/sub/x.go")); len(r.Files) != 0 {
		t.Errorf("the same files through a symlinked directory were reported again: %v", reasons(r.Files))
	}
	// And the other way round, within one call of a fresh session.
	s2, _ := Start(opts(root))
	if r := s2.Resolve(filepath.Join(root, "link/sub")); len(r.Files) != 2 || r.Files[0].Path != filepath.Join(root, "link/AGENTS.md") {
		t.Errorf("through the link = %v, want the two files under the link's path", reasons(r.Files))
	}
	if r := s2.Resolve(filepath.Join(root, "real/sub")); len(r.Files) != 0 {
		t.Errorf("real path after the link = %v", reasons(r.Files))
	}
}

func TestIdentityDedupeSurvivesSavedState(t *testing.T) {
	root := testRepo(t, map[string]string{"real/AGENTS.md": "real"})
	platformtest.Symlink(t, filepath.Join(root, "real"), filepath.Join(root, "link"))
	s, _ := Start(opts(root))
	s.Resolve(filepath.Join(root, "real"))
	restored := Restore(s.State(), opts(root))
	if r := restored.Resolve(filepath.Join(root, "link")); len(r.Files) != 0 {
		t.Errorf("restored session reported %v", reasons(r.Files))
	}
}

func TestResolveReplacedFileWithSameVersionIsUpdated(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "abc"})
	p := filepath.Join(root, "AGENTS.md")
	mt := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	setMtime(t, p, mt)
	s, _ := Start(opts(root))
	write(t, filepath.Join(root, "new"), "xyz")
	setMtime(t, filepath.Join(root, "new"), mt)
	if err := os.Rename(filepath.Join(root, "new"), p); err != nil {
		t.Fatal(err)
	}
	if r := s.Resolve(root); !cmp.Equal(reasons(r.Files), []string{"updated " + p}) {
		t.Errorf("replaced file = %v, want updated", reasons(r.Files))
	}
}

func TestResolverDisabled(t *testing.T) {
	root := testRepo(t, map[string]string{"a/AGENTS.md": "a"})
	s, _ := Start(opts(root, func(c *Config) { c.Resolver.Enabled = false }))
	if r := s.Resolve(filepath.Join(root, "a")); len(r.Files) != 0 {
		t.Errorf("disabled resolver returned %v", paths(r.Files))
	}
}

// The upstream TypeScript never emits the resolve reminder; ours must,
// exactly as the spec shows, and nothing when there is nothing to say.
func TestBeyondReferenceResolveReminderEmitted(t *testing.T) {
	root := testRepo(t, map[string]string{"feature/AGENTS.md": "f", "feature/sub/AGENTS.md": "s"})
	mt := time.UnixMilli(1738970000000)
	setMtime(t, filepath.Join(root, "feature/AGENTS.md"), mt)
	setMtime(t, filepath.Join(root, "feature/sub/AGENTS.md"), mt.Add(time.Second+time.Microsecond))
	s, _ := Start(opts(root))
	got := ResolveReminder(s.Resolve(filepath.Join(root, "feature/sub/x.go")).Files)
	want := `<system-reminder type="agents.resolve.paths">
Additional AGENTS.md may apply for this path:
- ` + filepath.Join(root, "feature/AGENTS.md") + ` (mtime: 1738970000000)
- ` + filepath.Join(root, "feature/sub/AGENTS.md") + ` (mtime: 1738970001000)
Read and apply these files before editing files in this scope.
</system-reminder>`
	if got != want {
		t.Errorf("reminder:\n%s\nwant:\n%s", got, want)
	}
	if got := ResolveReminder(s.Resolve(filepath.Join(root, "feature/sub/x.go")).Files); got != "" {
		t.Errorf("reminder without results = %q, want empty", got)
	}
}

// mtimeMs floors to milliseconds and is clamped at 0 before 1970, as the
// seed's schema wants it nonnegative.
func TestMtimeMsFloorsAndClamps(t *testing.T) {
	for _, tt := range []struct{ ns, ms int64 }{{1738970000000999999, 1738970000000}, {1999999, 1}, {0, 0}, {-1, 0}, {-1000000, 0}, {-86400e9, 0}} {
		if got := (version{mtimeNs: tt.ns}).mtimeMs(); got != tt.ms {
			t.Errorf("mtimeMs(%d) = %d, want %d", tt.ns, got, tt.ms)
		}
	}
}

// Under 50 concurrent resolves each file is reported exactly once.
func TestResolveConcurrentReportsEachFileOnce(t *testing.T) {
	files := map[string]string{}
	var targets []string
	for _, d := range []string{"a", "a/b", "a/b/c", "x", "x/y", "x/y/z", "q"} {
		files[d+"/AGENTS.md"] = d
		targets = append(targets, d)
	}
	root := testRepo(t, files)
	s, _ := Start(opts(root, func(c *Config) { c.Resolver.MaxFilesPerResolve = 2 }))
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for g := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				r := s.Resolve(filepath.Join(root, targets[(g+i)%len(targets)], "f.go"))
				mu.Lock()
				for _, f := range r.Files {
					seen[f.Path]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != len(targets) {
		t.Errorf("reported %d files, want %d: %v", len(seen), len(targets), seen)
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s reported %d times", p, n)
		}
	}
}
