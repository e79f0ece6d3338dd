package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testMarker is a marker name no real directory above the test's temporary
// directory carries, so root estimation only sees what the test made.
const testMarker = ".lineage-test-root"

// makeTree creates files under dir: a key ending in "/" is a directory,
// anything else a file with the given content. It returns dir.
func makeTree(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testRepo is a temporary directory holding a project root (marked with
// testMarker) and files; it returns the root.
func testRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	files[testMarker+"/"] = ""
	return makeTree(t, root, files)
}

// testConfig is the default configuration with the test marker.
func testConfig() Config {
	c := DefaultConfig()
	c.Root.Markers = []string{testMarker}
	return c
}

func opts(cwd string, mutate ...func(*Config)) Options {
	c := testConfig()
	for _, m := range mutate {
		m(&c)
	}
	return Options{Config: c, Cwd: cwd}
}

func paths(files []File) []string {
	out := []string{}
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func reasons(files []File) []string {
	out := []string{}
	for _, f := range files {
		out = append(out, f.Reason+" "+f.Path)
	}
	return out
}

// setMtime sets a file's modification time and fails the test on error.
func setMtime(t testing.TB, p string, mt time.Time) {
	t.Helper()
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
