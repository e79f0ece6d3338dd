package skills

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/internal/tokens"
)

// words counts whitespace-separated words: a cheap, deterministic tokenizer
// for tests.
var wordCounter = tokens.Func{Name: "words", Fn: func(s string) int { return len(words(s)) }}

// tree writes files (slash paths → content) under a new temporary
// directory, which holds a .git marker, and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files[".git/HEAD"] = "ref: refs/heads/main\n"
	platformtest.WriteTree(t, dir, files)
	return dir
}

func write(t *testing.T, p, c string) {
	t.Helper()
	if err := mkfile(p, c); err != nil {
		t.Fatal(err)
	}
}

func mkfile(p, c string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(c), 0o644)
}

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func discover(t *testing.T, o Options) *Catalog {
	t.Helper()
	if o.Tokens == nil {
		o.Tokens = wordCounter
	}
	c, err := Discover(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func names(ss []Skill) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}
