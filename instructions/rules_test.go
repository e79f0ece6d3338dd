package instructions

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// listingFS is a countingFS that can list directories (rule folders).
type listingFS struct{ *countingFS }

func (l listingFS) ReadDir(name string) ([]fs.DirEntry, error) { return l.countingFS.ReadDir(name) }

func TestRulesLoadOrWaitForTheirPaths(t *testing.T) {
	root := testRepo(t, map[string]string{
		"AGENTS.md":                     "top",
		".claude/rules/always.md":       "Always rule.\n",
		".claude/rules/sub/fm.md":       "---\ndescription: x\n---\nFront matter stripped.",
		".claude/rules/web.md":          "---\npaths:\n  - \"web/**/*.tsx\"\n  - \"*.{ts,tsx}\"\n---\nWeb rule.",
		".agents/rules/go.md":           "---\npaths: \"**/*.go\"\n---\nGo rule.",
		".agents/rules/notes.txt":       "not a rule",
		"web/app/.claude/rules/deep.md": "too deep for a chain at the root",
	})
	cfs := listingFS{newCountingFS()}
	o := opts(root)
	o.FS = cfs
	s, in := Start(o)
	want := []string{filepath.Join(root, "AGENTS.md"), filepath.Join(root, ".claude/rules/always.md"), filepath.Join(root, ".claude/rules/sub/fm.md")}
	if got := paths(in.Files); !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	if !strings.Contains(in.Text, "Front matter stripped.") || strings.Contains(in.Text, "description") {
		t.Errorf("front matter not stripped:\n%s", in.Text)
	}
	// Only the two rule folders (and the subfolder) were listed.
	slices.Sort(cfs.listed)
	if wantListed := []string{filepath.Join(root, ".agents/rules"), filepath.Join(root, ".claude/rules"), filepath.Join(root, ".claude/rules/sub")}; !slices.Equal(cfs.listed, wantListed) {
		t.Errorf("listed %q, want %q", cfs.listed, wantListed)
	}
	cfs.reset()
	if r := s.Resolve("web/app/page.tsx"); !slices.Equal(reasons(r.Files), []string{"new " + filepath.Join(root, ".claude/rules/web.md")}) {
		t.Errorf("resolve a .tsx: %q", reasons(r.Files))
	}
	if r := s.Resolve("web/app/page.tsx"); len(r.Files) != 0 {
		t.Errorf("second resolve: %q", reasons(r.Files))
	}
	if r := s.Resolve("main.ts"); len(r.Files) != 0 {
		t.Errorf("main.ts (web.md known): %q", reasons(r.Files))
	}
	if r := s.Resolve("cmd/x/main.go"); !slices.Equal(reasons(r.Files), []string{"new " + filepath.Join(root, ".agents/rules/go.md")}) {
		t.Errorf("resolve a .go: %q", reasons(r.Files))
	}
	if r := s.Resolve("README.md"); len(r.Files) != 0 {
		t.Errorf("README.md: %q", reasons(r.Files))
	}
	if len(cfs.listed) != 0 {
		t.Errorf("resolve listed %q", cfs.listed)
	}
	// A change to a delivered rule is delivered again, from a saved state.
	setMtime(t, filepath.Join(root, ".agents/rules/go.md"), time.Unix(1_800_000_000, 0))
	r2 := Restore(s.State(), o)
	if r := r2.Resolve("a.go"); !slices.Equal(reasons(r.Files), []string{"updated " + filepath.Join(root, ".agents/rules/go.md")}) {
		t.Errorf("after a change, restored: %q", reasons(r.Files))
	}
	st := s.State()
	if len(st.Rules) != 2 || st.Rules[1].Path != filepath.Join(root, ".claude/rules/web.md") || st.Rules[0].Paths[0] != "**/*.go" {
		t.Errorf("state rules: %+v", st.Rules)
	}
}

func TestRuleWithBadFrontMatterIsReported(t *testing.T) {
	root := testRepo(t, map[string]string{".claude/rules/bad.md": "---\npaths: [unclosed\n---\nx", ".claude/rules/num.md": "---\npaths: 3\n---\nx"})
	_, in := Start(opts(root))
	w := strings.Join(in.Warnings, "\n")
	if len(in.Files) != 0 || !strings.Contains(w, "bad.md: line 2: front matter") || !strings.Contains(w, "num.md: front matter: paths: want a glob or a list of globs") {
		t.Errorf("files %q, warnings:\n%s", paths(in.Files), w)
	}
	e := Explain(opts(root), "")
	if e.Dirs[1].Status != StatusUnreadable || e.Dirs[1].Kind != KindRule {
		t.Errorf("explain: %+v", e.Dirs)
	}
}

func TestExcludes(t *testing.T) {
	root := testRepo(t, map[string]string{
		"AGENTS.md":                  "top @docs/x.md",
		"docs/x.md":                  "x",
		"packages/legacy/AGENTS.md":  "legacy",
		"packages/web/AGENTS.md":     "web",
		".claude/rules/legacy.md":    "legacy rule",
		"packages/legacy/sub/x.go":   "",
		"packages/web/AGENTS.md.bak": "",
	})
	ex := func(c *Config) {
		c.Excludes = []string{"packages/legacy/**", filepath.Join(root, "docs/*.md"), "**/rules/legacy.md"}
	}
	e := Explain(opts(filepath.Join(root, "packages/legacy/sub"), ex), "")
	got := map[string]string{}
	for _, d := range e.Dirs {
		if d.Status == StatusExcluded {
			got[filepath.ToSlash(strings.TrimPrefix(d.Path, root))] = d.Detail
		}
	}
	want := map[string]string{"/docs/x.md": filepath.Join(root, "docs/*.md"), "/packages/legacy/AGENTS.md": "packages/legacy/**", "/.claude/rules/legacy.md": "**/rules/legacy.md"}
	if len(got) != len(want) {
		t.Errorf("excluded %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: excluded by %q, want %q", k, got[k], v)
		}
	}
	s, in := Start(opts(root, ex))
	if !slices.Equal(paths(in.Files), []string{filepath.Join(root, "AGENTS.md")}) {
		t.Errorf("loaded %q", paths(in.Files))
	}
	if r := s.Resolve("packages/legacy/sub/x.go"); len(r.Files) != 0 {
		t.Errorf("resolve reported excluded files: %q", reasons(r.Files))
	}
	if r := s.Resolve("packages/web/x.ts"); len(r.Files) != 1 {
		t.Errorf("resolve web: %q", reasons(r.Files))
	}
}

func TestGlobalFilesHaveTheirOwnCap(t *testing.T) {
	home := makeTree(t, t.TempDir(), map[string]string{".codex/AGENTS.md": "global one", "g2.md": "global two @inc.md", "inc.md": "included", "big.md": strings.Repeat("b", 100)})
	root := testRepo(t, map[string]string{"AGENTS.md": "project"})
	o := opts(root, func(c *Config) {
		c.GlobalFiles = []string{"~/.codex/AGENTS.md", filepath.Join(home, "g2.md"), "~/missing.md", "~/big.md"}
		c.GlobalMaxBytes = 60
		c.Initial.MaxBytes = 7 // "project": the globals do not count here
	})
	o.Home = home
	_, in := Start(o)
	want := []string{filepath.Join(home, ".codex/AGENTS.md"), filepath.Join(home, "g2.md"), filepath.Join(home, "inc.md"), filepath.Join(root, "AGENTS.md")}
	if got := paths(in.Files); !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	if !strings.HasPrefix(in.Text, "<agents_context scope=\"initial\">\nInstructions from: "+filepath.Join(home, ".codex/AGENTS.md")+"\nglobal one") {
		t.Errorf("text:\n%s", in.Text)
	}
	e := Explain(o, "")
	last := e.Dirs[4]
	if last.Status != StatusMaxBytes || !strings.Contains(last.Detail, "globalMaxBytes 60") || e.Dirs[3].Status != StatusMissing {
		t.Errorf("explain: %+v", e.Dirs)
	}
	// Never on by default.
	_, in = Start(opts(root))
	if len(in.Files) != 1 {
		t.Errorf("default: %q", paths(in.Files))
	}
}

func TestResolveReportsImportsAndTheirChanges(t *testing.T) {
	root := testRepo(t, map[string]string{
		"AGENTS.md":     "top @docs/top.md",
		"docs/top.md":   "top doc",
		"web/AGENTS.md": "web @../docs/web.md @../docs/top.md",
		"docs/web.md":   "web doc @more.md",
		"docs/more.md":  "more",
	})
	p := t.TempDir() + "/state.json"
	o := opts(root)
	s, _ := Start(o)
	r := s.Resolve("web/x.ts")
	want := []string{"new " + filepath.Join(root, "web/AGENTS.md"), "new " + filepath.Join(root, "docs/web.md"), "new " + filepath.Join(root, "docs/more.md")}
	if !slices.Equal(reasons(r.Files), want) || r.Files[1].ImportedBy != filepath.Join(root, "web/AGENTS.md") || r.Files[2].ImportedBy != filepath.Join(root, "docs/web.md") {
		t.Fatalf("resolve: %q (%+v), want %q", reasons(r.Files), r.Files, want)
	}
	if err := WriteState(t.Context(), p, s.State()); err != nil {
		t.Fatal(err)
	}
	// A change to a deep import is reported by a later process.
	write(t, filepath.Join(root, "docs/more.md"), "more, changed")
	st, _, _ := ReadState(p)
	s2 := Restore(st, o)
	if r := s2.Resolve("web/y.ts"); !slices.Equal(reasons(r.Files), []string{"updated " + filepath.Join(root, "docs/more.md")}) {
		t.Errorf("after change: %q", reasons(r.Files))
	}
	if r := s2.Resolve("web/y.ts"); len(r.Files) != 0 {
		t.Errorf("again: %q", reasons(r.Files))
	}
	// A new import added to a known file comes with the file's update.
	write(t, filepath.Join(root, "docs/top.md"), "top doc @new.md")
	write(t, filepath.Join(root, "docs/new.md"), "new")
	if r := s2.Resolve("x.go"); !slices.Equal(reasons(r.Files), []string{"updated " + filepath.Join(root, "docs/top.md"), "new " + filepath.Join(root, "docs/new.md")}) {
		t.Errorf("new import: %q", reasons(r.Files))
	}
	// Resume re-presents a changed import of the chain.
	if err := WriteState(t.Context(), p, s2.State()); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "docs/top.md"), "top doc @new.md, changed")
	res, err := ResumeSession(t.Context(), p, o)
	if err != nil || !strings.Contains(res.Text, "- "+filepath.Join(root, "docs/top.md (mtime:")) {
		t.Errorf("resume: %v\n%s", err, res.Text)
	}
	_ = os.Remove(p)
}
