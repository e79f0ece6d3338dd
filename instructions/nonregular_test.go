//go:build unix

package instructions

import (
	"errors"
	"github.com/agentlineage/lineage/internal/platformtest"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlineage/lineage/internal/fsx"
)

// nonRegularRepo makes a repo whose chain root/a/b/c/d/e holds, in order:
// a regular file, a directory, a FIFO, a socket, a dangling link and a
// symlink to a regular file, all named AGENTS.md.
func nonRegularRepo(t *testing.T) (root, leaf string) {
	t.Helper()
	// A short base keeps the socket path under the 108-byte limit.
	base, err := os.MkdirTemp("", "lnr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root = filepath.Join(base, "r")
	makeTree(t, root, map[string]string{
		testMarker + "/": "", "AGENTS.md": "root", "a/AGENTS.md/": "", "b/": "", "c/": "", "d/": "", "e/": "",
		"target.md": "linked rules",
	})
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	if err := syscall.Mkfifo(at("a/b/AGENTS.md"), 0o644); err != nil {
		os.MkdirAll(at("a/b"), 0o755)
		if err := syscall.Mkfifo(at("a/b/AGENTS.md"), 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	os.MkdirAll(at("a/b/c/d/e"), 0o755)
	l, err := net.Listen("unix", at("a/b/c/AGENTS.md"))
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	platformtest.Symlink(t, at("nowhere.md"), at("a/b/c/d/AGENTS.md"))
	platformtest.Symlink(t, at("target.md"), at("a/b/c/d/e/AGENTS.md"))
	return root, at("a/b/c/d/e")
}

// withTimeout fails the test instead of hanging when fn blocks (a FIFO
// opened for reading blocks until a writer comes).
func withTimeout(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked: a FIFO was opened")
	}
}

func TestNonRegularFilesAreSkippedWithReason(t *testing.T) {
	root, leaf := nonRegularRepo(t)
	var e Explanation
	withTimeout(t, func() { e = Explain(opts(leaf), "") })
	type row struct {
		Dir    string
		Status Status
		Detail string
	}
	var got []row
	for _, d := range e.Dirs {
		got = append(got, row{d.Dir, d.Status, d.Detail})
	}
	want := []row{
		{root, StatusLoaded, ""},
		{filepath.Join(root, "a"), StatusNotRegular, "directory"},
		{filepath.Join(root, "a/b"), StatusNotRegular, "fifo"},
		{filepath.Join(root, "a/b/c"), StatusNotRegular, "socket"},
		{filepath.Join(root, "a/b/c/d"), StatusNotRegular, "dangling symlink"},
		{filepath.Join(root, "a/b/c/d/e"), StatusLoaded, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSymlinkToFileCountsUnderLinkPath(t *testing.T) {
	root, leaf := nonRegularRepo(t)
	var in Initial
	withTimeout(t, func() { _, in = Start(opts(leaf)) })
	link := filepath.Join(leaf, "AGENTS.md")
	if diff := cmp.Diff([]string{filepath.Join(root, "AGENTS.md"), link}, paths(in.Files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if in.Files[1].SizeBytes != int64(len("linked rules")) {
		t.Errorf("size = %d, want the target's", in.Files[1].SizeBytes)
	}
}

func TestResolveSkipsNonRegularFiles(t *testing.T) {
	root, leaf := nonRegularRepo(t)
	s, _ := Start(opts(root))
	var r Resolution
	withTimeout(t, func() { r = s.Resolve(filepath.Join(leaf, "x.go")) })
	if diff := cmp.Diff([]string{"new " + filepath.Join(leaf, "AGENTS.md")}, reasons(r.Files)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFileNamesFirstRegularFileWins(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md/": "", "CLAUDE.md": "claude", "RULES.md": "rules",
		"a/CLAUDE.md": "only claude", "b/": ""})
	names := func(c *Config) { c.FileNames = []string{"AGENTS.md", "CLAUDE.md", "RULES.md"} }
	_, in := Start(opts(filepath.Join(root, "a"), names))
	if diff := cmp.Diff([]string{filepath.Join(root, "CLAUDE.md"), filepath.Join(root, "a/CLAUDE.md")}, paths(in.Files)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	e := Explain(opts(filepath.Join(root, "b"), func(c *Config) { c.FileNames = []string{"AGENTS.md"} }), "")
	if e.Dirs[0].Status != StatusNotRegular || e.Dirs[1].Status != StatusMissing {
		t.Errorf("statuses = %+v", e.Dirs)
	}
}

// failingFS fails chosen calls the way a permission problem would.
type failingFS struct {
	FS
	lstat, read map[string]error
}

func (f failingFS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.lstat[name]; err != nil {
		return nil, err
	}
	return f.FS.Lstat(name)
}

func (f failingFS) OpenRegular(name string) (io.ReadCloser, error) {
	if err := f.read[name]; err != nil {
		return nil, err
	}
	return f.FS.OpenRegular(name)
}

func TestUnreadableFileIsSkipped(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "root", "a/AGENTS.md": "secret", "a/b/AGENTS.md": "leaf"})
	denied := &fs.PathError{Op: "open", Path: filepath.Join(root, "a/AGENTS.md"), Err: syscall.EACCES}
	o := opts(filepath.Join(root, "a", "b"))
	o.FS = failingFS{FS: OS, read: map[string]error{filepath.Join(root, "a/AGENTS.md"): denied},
		lstat: map[string]error{filepath.Join(root, "a/b/AGENTS.md"): &fs.PathError{Op: "lstat", Path: filepath.Join(root, "a/b/AGENTS.md"), Err: syscall.EACCES}}}
	e := Explain(o, "")
	var got []Status
	for _, d := range e.Dirs {
		got = append(got, d.Status)
	}
	if diff := cmp.Diff([]Status{StatusLoaded, StatusUnreadable, StatusUnreadable}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(e.Findings()) != 2 {
		t.Errorf("findings = %+v, want the two unreadable files", e.Findings())
	}
	_, in := Start(o)
	if diff := cmp.Diff([]string{filepath.Join(root, "AGENTS.md")}, paths(in.Files)); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
}

func TestOSReadFileRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	withTimeout(t, func() {
		if _, err := OS.OpenRegular(p); !errors.Is(err, fsx.ErrNotRegular) {
			t.Errorf("err = %v, want %v", err, fsx.ErrNotRegular)
		}
	})
}

// A FIFO in place of a chain file is never opened: nothing blocks.
func TestFIFOChainFileNeverBlocks(t *testing.T) {
	root := testRepo(t, map[string]string{"a/": ""})
	if err := syscall.Mkfifo(filepath.Join(root, "AGENTS.md"), 0o644); err != nil {
		t.Skip(err)
	}
	withTimeout(t, func() {
		e := Explain(opts(filepath.Join(root, "a")), "")
		if e.Dirs[0].Status != StatusNotRegular || e.Dirs[0].Detail != "fifo" {
			t.Errorf("dirs = %+v", e.Dirs)
		}
	})
}
