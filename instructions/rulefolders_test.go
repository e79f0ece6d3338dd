package instructions

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A process that loads the chain again and again (the MCP server) stats
// each directory's absent rule folders only while it learns they are
// absent: after that, one stat of each directory (which exists) tells
// they still are, and a rule folder made later is found at the next load.
func TestAbsentRuleFoldersAreNotProbedAgain(t *testing.T) {
	const depth = 20
	root, leaf := deepRepo(t, depth, 0)
	mid := filepath.Join(root, "d1", "d2")
	if err := os.MkdirAll(filepath.Join(mid, ".claude", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mid, ".claude", "rules", "style.md"), "be brief")
	// Modified an hour ago: old enough to be trusted (absentRacyWindow).
	old := time.Now().Add(-time.Hour)
	for _, d := range append(chainDirs(root, leaf), filepath.Join(mid, ".claude"), filepath.Join(mid, ".claude", "rules")) {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	info, err := os.Stat(leaf)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stampOf(leaf, info); !ok {
		t.Skip("this file system gives no directory identity: absent folders are probed every time")
	}
	cfs := newCountingFS()
	o := opts(leaf, func(c *Config) { c.Rules.Dirs = []string{".agents/rules", ".claude/rules"} })
	o.FS = cfs
	hasRule := func(in Initial, name string) bool {
		return slices.ContainsFunc(in.Files, func(f File) bool { return f.Kind == KindRule && filepath.Base(f.Path) == name })
	}
	for range 2 {
		if _, in := Start(o); !hasRule(in, "style.md") {
			t.Fatalf("the rule was not loaded: %v", paths(in.Files))
		}
	}
	cfs.reset()
	_, in := Start(o)
	if !hasRule(in, "style.md") {
		t.Fatalf("the rule was not loaded: %v", paths(in.Files))
	}
	// The one rule folder that exists is statted with its first entry;
	// no absent one is.
	for name, want := range map[string]int{"stat .agents": 0, "stat .claude": 1, "stat rules": 1} {
		if got := cfs.calls[name]; got != want {
			t.Errorf("%d calls %q over a chain of %d directories, want %d", got, name, depth+1, want)
		}
	}
	// A rule folder made since: its directory changed, so it is looked
	// for again.
	if err := os.MkdirAll(filepath.Join(leaf, ".agents", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(leaf, ".agents", "rules", "new.md"), "new rule")
	if _, in := Start(o); !hasRule(in, "new.md") || !hasRule(in, "style.md") {
		t.Fatalf("a rule folder made since was not found: %v", paths(in.Files))
	}
}
