package agents

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/agentlineage/lineage/triad"
)

// tree writes files (relative path → content) under root; a content of
// "<dir>" makes a directory.
func tree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		writeOne(t, root, n, files[n])
	}
}

func writeOne(t testing.TB, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, name)
	if content == "<dir>" {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func tempRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func profileJSON(t testing.TB, opts Options, slug string, kind triad.DocKind) (string, *Profile) {
	t.Helper()
	p, err := BuildProfile(opts, slug, kind)
	if err != nil {
		t.Fatal(err)
	}
	return string(triad.Canonical(p.Merged)), p
}

func contains(list []string, sub string) bool {
	for _, s := range list {
		if len(s) >= len(sub) && indexOf(s, sub) >= 0 {
			return true
		}
	}
	return false
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
