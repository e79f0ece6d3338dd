package hooks

import (
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// opencode's instructions setting, joined over its config files: a
// relative glob tried from the cwd and every directory up to the worktree
// root, "~/" and absolute entries, URLs skipped, JSON with comments and
// "{env:…}" read as opencode reads them.
func TestOpencodeInstructionsSetting(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	abs := filepath.Join(dir, "shared", "team.md")
	platformtest.WriteTree(t, dir, map[string]string{
		"repo/.git/HEAD": "ref: refs/heads/main\n",
		// The project's config: a comment, a trailing comma, an env
		// variable, a URL and an entry that is not a string.
		"repo/opencode.jsonc": "{\n  // team rules\n  \"instructions\": [\".cursor/rules/*.md\", \"{env:DOCS}/style.md\", \"https://example.com/x.md\", 3,],\n}\n",
		// A .opencode folder's config and the global one add theirs.
		"repo/web/.opencode/opencode.json":  `{"instructions": ["notes/**/*.md"]}`,
		"home/.config/opencode/config.json": `{"instructions": ["~/mine.md", "` + filepath.ToSlash(abs) + `"]}`,
		"repo/.cursor/rules/a.md":           "a",
		"repo/.cursor/rules/deep/b.md":      "b",
		"repo/docs/style.md":                "style",
		"repo/web/notes/x/y.md":             "notes",
		"repo/web/other.md":                 "other",
		"home/mine.md":                      "mine",
		"shared/team.md":                    "team",
		"shared/other.md":                   "other",
	})
	env := Env{Home: home, Lookup: func(k string) (string, bool) { return "docs", k == "DOCS" }}
	n := NativeView(Opencode, filepath.Join(repo, "web"), env)
	for _, c := range []struct {
		path string
		want bool
	}{
		{filepath.Join(repo, ".cursor", "rules", "a.md"), true}, // from the repository root, above the cwd
		{filepath.Join(repo, ".cursor", "rules", "deep", "b.md"), false},
		{filepath.Join(repo, "docs", "style.md"), true},
		{filepath.Join(repo, "web", "notes", "x", "y.md"), true},
		{filepath.Join(repo, "web", "other.md"), false},
		{filepath.Join(home, "mine.md"), true},
		{abs, true},
		{filepath.Join(dir, "shared", "other.md"), false},
	} {
		if got := n.Loaded(c.path); got != c.want {
			t.Errorf("Loaded(%s) = %v, want %v (globs %d)", c.path, got, c.want, len(n.globs))
		}
	}
	// With the project's config off, only the global entries are read,
	// and a relative entry is tried from opencode's config directory.
	off := NativeView(Opencode, filepath.Join(repo, "web"), Env{Home: home, Lookup: func(k string) (string, bool) {
		return "1", k == "OPENCODE_DISABLE_PROJECT_CONFIG"
	}})
	if off.Loaded(filepath.Join(repo, ".cursor", "rules", "a.md")) || !off.Loaded(abs) {
		t.Errorf("OPENCODE_DISABLE_PROJECT_CONFIG: the project's entries still count, or the global ones do not")
	}
	// A config that is not JSON with comments adds nothing, and does not
	// stop the others.
	platformtest.WriteTree(t, repo, map[string]string{"opencode.json": `{"instructions": [`})
	if n := NativeView(Opencode, repo, env); !n.Loaded(filepath.Join(repo, ".cursor", "rules", "a.md")) {
		t.Error("a broken opencode.json beside opencode.jsonc dropped the latter's entries")
	}
}

func TestSubstituteEnv(t *testing.T) {
	env := Env{Lookup: func(k string) (string, bool) {
		v, ok := map[string]string{"A": "x", "B": ""}[k]
		return v, ok
	}}
	for in, want := range map[string]string{
		"{env:A}/{env:B}{env:C}.md": "x/.md",
		"{env:}":                    "{env:}",
		"{env:A":                    "{env:A",
		"no vars":                   "no vars",
	} {
		if got := substituteEnv(in, env); got != want {
			t.Errorf("substituteEnv(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzOpencodeInstructions(f *testing.F) {
	f.Add([]byte("{\n// c\n\"instructions\": [\"a.md\", \"{env:X}/b.md\",],\n}"))
	f.Add([]byte(`{"instructions": "not a list"}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		env := Env{Lookup: func(string) (string, bool) { return "v", true }}
		for _, e := range parseOpencodeInstructions(text, env) {
			if e == "" {
				t.Fatalf("an empty entry from %q", text)
			}
		}
	})
}
