package fstest

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
)

// NewFS returns the implementation under test for the tree the suite made
// under root; it may confine itself to root.
type NewFS func(t *testing.T, root string) instructions.FS

// The tree every test looks at, under root.
const (
	fileA    = "a.md"          // "alpha\n"
	fileB    = "dir/b.md"      // "beta"
	subDir   = "dir/sub"       // an empty directory
	link     = "link.md"       // → a.md
	dangling = "dangling.md"   // → missing.md
	escape   = "dir/escape.md" // → ../../outside/secret.md, outside root
	fifo     = "fifo"          // a named pipe (where the platform has them)
	missing  = "missing.md"
	contentA = "alpha\n"
	contentB = "beta"
)

// tree makes the suite's files under a new temporary directory and returns
// root. links and fifo say whether the platform made them.
func tree(t *testing.T) (root string, links, hasFIFO bool) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	for _, d := range []string{filepath.Join(root, subDir), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{
		filepath.Join(root, fileA): contentA, filepath.Join(root, fileB): contentB,
		filepath.Join(base, "outside", "secret.md"): "secret",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links = true
	for name, target := range map[string]string{link: fileA, dangling: missing, escape: "../../outside/secret.md"} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			if runtime.GOOS != "windows" {
				t.Fatalf("symlink %s: %v", name, err)
			}
			links = false // Windows without the privilege: the link checks are skipped
		}
	}
	hasFIFO = makeFIFO(filepath.Join(root, fifo)) == nil
	return root, links, hasFIFO
}

// Run runs the suite on the implementation newFS returns.
func Run(t *testing.T, newFS NewFS) {
	t.Run("Stat", func(t *testing.T) { testStat(t, newFS) })
	t.Run("Lstat", func(t *testing.T) { testLstat(t, newFS) })
	t.Run("OpenRegular", func(t *testing.T) { testOpenRegular(t, newFS) })
	t.Run("OpenRegularIn", func(t *testing.T) { testOpenRegularIn(t, newFS) })
	t.Run("ReadDir", func(t *testing.T) { testReadDir(t, newFS) })
}

func at(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

// isMissing is what the loader takes for "not there": fs.ErrNotExist, or
// ENOTDIR for a name below a file.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func testStat(t *testing.T, newFS NewFS) {
	root, links, _ := tree(t)
	fsys := newFS(t, root)
	if fi, err := fsys.Stat(at(root, fileA)); err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(contentA)) {
		t.Errorf("Stat(a.md) = %v, %v; want a regular file of %d bytes", fi, err, len(contentA))
	}
	if fi, err := fsys.Stat(at(root, "dir")); err != nil || !fi.IsDir() {
		t.Errorf("Stat(dir) = %v, %v; want a directory", fi, err)
	}
	if _, err := fsys.Stat(at(root, missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing.md) = %v; want fs.ErrNotExist", err)
	}
	if _, err := fsys.Stat(at(root, fileA+"/x")); !isMissing(err) {
		t.Errorf("Stat(a.md/x) = %v; want fs.ErrNotExist or ENOTDIR", err)
	}
	if !links {
		t.Log("no symbolic links on this platform: their checks skipped")
		return
	}
	if fi, err := fsys.Stat(at(root, link)); err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(contentA)) {
		t.Errorf("Stat(link.md) = %v, %v; want the file it leads to", fi, err)
	}
	if _, err := fsys.Stat(at(root, dangling)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(dangling.md) = %v; want fs.ErrNotExist", err)
	}
}

func testLstat(t *testing.T, newFS NewFS) {
	root, links, _ := tree(t)
	fsys := newFS(t, root)
	if fi, err := fsys.Lstat(at(root, fileA)); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Lstat(a.md) = %v, %v; want a regular file", fi, err)
	}
	if _, err := fsys.Lstat(at(root, missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat(missing.md) = %v; want fs.ErrNotExist", err)
	}
	if !links {
		return
	}
	for _, name := range []string{link, dangling} {
		if fi, err := fsys.Lstat(at(root, name)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Lstat(%s) = %v, %v; want the link itself", name, fi, err)
		}
	}
}

// read reads all of r and closes it.
func read(t *testing.T, r io.ReadCloser) string {
	t.Helper()
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// refuses calls open, which must fail, and fails the test if it blocks.
func refuses(t *testing.T, what string, open func() (io.ReadCloser, error)) error {
	t.Helper()
	type result struct {
		r   io.ReadCloser
		err error
	}
	done := make(chan result, 1)
	go func() { r, err := open(); done <- result{r, err} }()
	select {
	case res := <-done:
		if res.err == nil {
			res.r.Close()
			t.Errorf("%s: opened; want it refused", what)
		}
		return res.err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still blocked after 10 s; it must be refused without blocking", what)
		return nil
	}
}

func testOpenRegular(t *testing.T, newFS NewFS) {
	root, links, hasFIFO := tree(t)
	fsys := newFS(t, root)
	if r, err := fsys.OpenRegular(at(root, fileA)); err != nil {
		t.Errorf("OpenRegular(a.md): %v", err)
	} else if got := read(t, r); got != contentA {
		t.Errorf("OpenRegular(a.md) read %q, want %q", got, contentA)
	}
	if err := refuses(t, "OpenRegular(missing.md)", func() (io.ReadCloser, error) { return fsys.OpenRegular(at(root, missing)) }); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenRegular(missing.md) = %v; want fs.ErrNotExist", err)
	}
	refuses(t, "OpenRegular(dir)", func() (io.ReadCloser, error) { return fsys.OpenRegular(at(root, "dir")) })
	if hasFIFO {
		refuses(t, "OpenRegular(fifo)", func() (io.ReadCloser, error) { return fsys.OpenRegular(at(root, fifo)) })
	}
	if !links {
		return
	}
	if r, err := fsys.OpenRegular(at(root, link)); err != nil {
		t.Errorf("OpenRegular(link.md): %v", err)
	} else if got := read(t, r); got != contentA {
		t.Errorf("OpenRegular(link.md) read %q, want %q", got, contentA)
	}
	refuses(t, "OpenRegular(dangling.md)", func() (io.ReadCloser, error) { return fsys.OpenRegular(at(root, dangling)) })
}

func testOpenRegularIn(t *testing.T, newFS NewFS) {
	root, links, hasFIFO := tree(t)
	ro, ok := newFS(t, root).(instructions.RootOpener)
	if !ok {
		t.Skip("not an instructions.RootOpener")
	}
	for _, c := range []struct{ dir, name, want string }{
		{"dir", "b.md", contentB},
		{".", fileB, contentB},
		{".", link, contentA}, // a link that stays inside
	} {
		if c.name == link && !links {
			continue
		}
		r, err := ro.OpenRegularIn(at(root, c.dir), filepath.FromSlash(c.name))
		if err != nil {
			t.Errorf("OpenRegularIn(%s, %s): %v", c.dir, c.name, err)
			continue
		}
		if got := read(t, r); got != c.want {
			t.Errorf("OpenRegularIn(%s, %s) read %q, want %q", c.dir, c.name, got, c.want)
		}
	}
	dir := at(root, "dir")
	refuses(t, "OpenRegularIn(dir, ../a.md)", func() (io.ReadCloser, error) { return ro.OpenRegularIn(dir, filepath.Join("..", fileA)) })
	refuses(t, "OpenRegularIn(dir, sub)", func() (io.ReadCloser, error) { return ro.OpenRegularIn(dir, "sub") })
	if links {
		refuses(t, "OpenRegularIn(dir, escape.md)", func() (io.ReadCloser, error) { return ro.OpenRegularIn(dir, "escape.md") })
	}
	if hasFIFO {
		refuses(t, "OpenRegularIn(root, fifo)", func() (io.ReadCloser, error) { return ro.OpenRegularIn(root, fifo) })
	}
}

func testReadDir(t *testing.T, newFS NewFS) {
	root, links, _ := tree(t)
	dr, ok := newFS(t, root).(instructions.DirReader)
	if !ok {
		t.Skip("not an instructions.DirReader")
	}
	ents, err := dr.ReadDir(at(root, "dir"))
	if err != nil {
		t.Fatalf("ReadDir(dir): %v", err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		if e.Name() == "sub" && !e.IsDir() {
			t.Errorf("ReadDir(dir): sub is not a directory")
		}
	}
	want := []string{"b.md", "sub"}
	if links {
		want = []string{"b.md", "escape.md", "sub"}
	}
	if !slices.Equal(names, want) {
		t.Errorf("ReadDir(dir) = %q, want %q (sorted)", names, want)
	}
	if _, err := dr.ReadDir(at(root, missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing.md) = %v; want fs.ErrNotExist", err)
	}
	if _, err := dr.ReadDir(at(root, fileA)); err == nil {
		t.Errorf("ReadDir(a.md) listed a file")
	}
}
