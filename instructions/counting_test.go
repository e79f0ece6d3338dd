package instructions

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// countingFS counts every call by kind and by the base name of the path,
// and offers directory listing methods that record any use.
type countingFS struct {
	FS
	mu     sync.Mutex
	calls  map[string]int // "stat AGENTS.md", "read AGENTS.md", ...
	listed []string
}

func newCountingFS() *countingFS { return &countingFS{FS: OS, calls: map[string]int{}} }

func (c *countingFS) count(kind, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[kind+" "+filepath.Base(name)]++
	c.calls[kind]++
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) {
	c.count("stat", name)
	return c.FS.Stat(name)
}

func (c *countingFS) Lstat(name string) (fs.FileInfo, error) {
	c.count("stat", name)
	return c.FS.Lstat(name)
}

func (c *countingFS) OpenRegular(name string) (io.ReadCloser, error) {
	c.count("read", name)
	return c.FS.OpenRegular(name)
}

// ReadDir and Open exist so that a lookup that tried to list a directory
// through the filesystem it was given would be seen.
func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.mu.Lock()
	c.listed = append(c.listed, name)
	c.mu.Unlock()
	return os.ReadDir(name)
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.listed = append(c.listed, name)
	c.mu.Unlock()
	return os.Open(name)
}

func (c *countingFS) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.listed = map[string]int{}, nil
}

// deepRepo makes root/d1/.../d<depth> with an AGENTS.md at every other
// level and siblings extra directories beside the chain at each level
// (total siblings, spread over the levels).
func deepRepo(t testing.TB, depth, siblingsPerLevel int) (root, leaf string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(root, testMarker), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := root
	for level := 1; level <= depth; level++ {
		for s := range siblingsPerLevel {
			if err := os.Mkdir(filepath.Join(dir, fmt.Sprintf("s%04d", s)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		dir = filepath.Join(dir, fmt.Sprintf("d%d", level))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if level%2 == 0 {
			write(t, filepath.Join(dir, "AGENTS.md"), strings.Repeat("x", level))
		}
	}
	write(t, filepath.Join(root, "AGENTS.md"), "root")
	return root, dir
}

// A resolve at depth d does at most d+1 stats per file name (plus one for
// the target) and never lists a directory, however many siblings there are.
func TestResolveStatsOncePerDirectoryAndNeverLists(t *testing.T) {
	const depth = 20
	// 5,000 sibling directories: 250 beside the chain at each of 20 levels.
	root, leaf := deepRepo(t, depth, 250)
	cfs := newCountingFS()
	o := opts(root, func(c *Config) {
		c.FileNames = []string{"AGENTS.md", "CLAUDE.md"}
		c.Resolver.MaxFilesPerResolve = 100
	})
	o.FS = cfs
	s, _ := Start(o)
	cfs.reset()
	r := s.Resolve(filepath.Join(leaf, "main.go"))
	if len(r.Files) != depth/2 {
		t.Fatalf("resolved %d files, want %d", len(r.Files), depth/2)
	}
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		if n := cfs.calls["stat "+name]; n > depth+1 {
			t.Errorf("%d stats of %s at depth %d, want at most %d", n, name, depth, depth+1)
		}
	}
	// Plus exactly one stat of the target.
	if n, per := cfs.calls["stat"], cfs.calls["stat AGENTS.md"]+cfs.calls["stat CLAUDE.md"]; n > per+1 {
		t.Errorf("%d stats in all, %d of them for file names: more than one other", n, per)
	}
	// Each reported file is read once, for its imports; nothing else is.
	if cfs.calls["read"] != len(r.Files) {
		t.Errorf("resolve read %d files for %d reported", cfs.calls["read"], len(r.Files))
	}
	if len(cfs.listed) != 0 {
		t.Errorf("directories listed: %v", cfs.listed)
	}
	// A second resolve costs the same and reports nothing.
	cfs.reset()
	if r := s.Resolve(filepath.Join(leaf, "main.go")); len(r.Files) != 0 {
		t.Errorf("second resolve = %v", paths(r.Files))
	}
	if n := cfs.calls["stat AGENTS.md"]; n > depth+1 {
		t.Errorf("second resolve: %d stats of AGENTS.md", n)
	}
	if n := cfs.calls["read"]; n != 0 {
		t.Errorf("second resolve (nothing new) read %d files", n)
	}
	// Markers are not searched again.
	if n := cfs.calls["stat "+testMarker]; n != 0 {
		t.Errorf("resolve looked for markers %d times", n)
	}
}
