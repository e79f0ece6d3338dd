package agents

import (
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/triad"
)

// tree writes files (relative path → content) under root; a content of
// "<dir>" (platformtest.Dir) makes a directory.
func tree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	platformtest.WriteTree(t, root, files)
}

func writeOne(t testing.TB, root, name, content string) {
	t.Helper()
	platformtest.WriteTree(t, root, map[string]string{name: content})
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
