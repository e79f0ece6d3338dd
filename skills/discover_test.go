package skills

import (
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlineage/lineage/instructions"
)

var rootCfg = instructions.DefaultConfig().Root

// Every directory from the root down to cwd is looked in; deeper is nearer,
// and in one directory .agents/skills comes before .claude/skills. The
// farther skills of a name are shadowed, each naming the winner.
func TestDiscoverNearerWins(t *testing.T) {
	dir := tree(t, map[string]string{
		".agents/skills/a/SKILL.md":          skillMD("a", "root agents a", "x"),
		".claude/skills/a/SKILL.md":          skillMD("a", "root claude a", "x"),
		".claude/skills/b/SKILL.md":          skillMD("b", "root claude b", "x"),
		"pkg/.claude/skills/b/SKILL.md":      skillMD("b", "pkg claude b", "one two three"),
		"pkg/.codex/skills/c/SKILL.md":       skillMD("c", "pkg codex c", "x"),
		"pkg/deep/.gemini/skills/a/SKILL.md": skillMD("a", "deep gemini a", "x"),
		"other/.agents/skills/z/SKILL.md":    skillMD("z", "not on the chain", "x"),
	})
	c := discover(t, Options{Cwd: filepath.Join(dir, "pkg", "deep"), Root: rootCfg})
	got := map[string]string{}
	for _, s := range c.Skills {
		got[s.Name] = s.Description
	}
	want := map[string]string{"a": "deep gemini a", "b": "pkg claude b", "c": "pkg codex c"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	var shadowed []string
	for _, s := range c.Shadowed {
		rel, _ := filepath.Rel(dir, s.Path)
		by, _ := filepath.Rel(dir, s.ShadowedBy)
		shadowed = append(shadowed, filepath.ToSlash(rel)+" by "+filepath.ToSlash(by))
	}
	wantShadowed := []string{
		".agents/skills/a/SKILL.md by pkg/deep/.gemini/skills/a/SKILL.md",
		".claude/skills/a/SKILL.md by pkg/deep/.gemini/skills/a/SKILL.md",
		".claude/skills/b/SKILL.md by pkg/.claude/skills/b/SKILL.md",
	}
	if diff := cmp.Diff(wantShadowed, shadowed); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	if b, _ := c.Find("b"); b.BodyTokens != 3 || b.Kind != ".claude/skills" || b.Scope != ScopeProject {
		t.Errorf("b = %+v", b)
	}
	if c.Root.Dir != dir || c.Root.Source != "marker:.git" {
		t.Errorf("root = %+v", c.Root)
	}
}

// Project before extra before user; user folders only when asked.
func TestDiscoverScopes(t *testing.T) {
	dir := tree(t, map[string]string{
		"repo/.agents/skills/s/SKILL.md": skillMD("s", "project", "x"),
		"extra/s/SKILL.md":               skillMD("s", "extra", "x"),
		"extra/e/SKILL.md":               skillMD("e", "extra only", "x"),
		"home/.claude/skills/s/SKILL.md": skillMD("s", "user", "x"),
		"home/.claude/skills/u/SKILL.md": skillMD("u", "user only", "x"),
		"repo/.git/HEAD":                 "x",
	})
	o := Options{Cwd: filepath.Join(dir, "repo"), Home: filepath.Join(dir, "home"), Root: rootCfg, Extra: []string{filepath.Join(dir, "extra")}}
	if got := names(discover(t, o).Skills); !cmp.Equal(got, []string{"e", "s"}) {
		t.Errorf("without user: %v", got)
	}
	o.User = true
	c := discover(t, o)
	if got := names(c.Skills); !cmp.Equal(got, []string{"e", "s", "u"}) {
		t.Errorf("with user: %v", got)
	}
	if s, _ := c.Find("s"); s.Description != "project" {
		t.Errorf("s = %+v", s)
	}
	var scopes []string
	for _, s := range c.Shadowed {
		scopes = append(scopes, string(s.Scope))
	}
	if !cmp.Equal(scopes, []string{"extra", "user"}) {
		t.Errorf("shadowed scopes %v", scopes)
	}
}

// A folder reached twice (a symbolic link to another folder in the root)
// and a skill linked into a second folder are listed once, not shadowed.
func TestDiscoverSameFileOnce(t *testing.T) {
	dir := tree(t, map[string]string{".agents/skills/a/SKILL.md": skillMD("a", "d", "x")})
	platformtest.Symlink(t, ".agents", filepath.Join(dir, ".claude"))
	os.MkdirAll(filepath.Join(dir, ".codex", "skills"), 0o755)
	platformtest.Symlink(t, filepath.Join("..", "..", ".agents", "skills", "a"), filepath.Join(dir, ".codex", "skills", "a"))
	c := discover(t, Options{Cwd: dir, Root: rootCfg})
	if len(c.Skills) != 1 || len(c.Shadowed) != 0 || len(c.Problems) != 0 {
		t.Errorf("skills %v shadowed %v problems %v", names(c.Skills), names(c.Shadowed), c.Problems)
	}
}

// Skills nest under category folders; a skill folder's own folders are its
// resources, not more skills; depth is bounded.
func TestDiscoverNesting(t *testing.T) {
	deep := strings.Repeat("d/", MaxDepth) + "toodeep/SKILL.md"
	dir := tree(t, map[string]string{
		".agents/skills/cat/x/SKILL.md":            skillMD("x", "nested", "x"),
		".agents/skills/y/SKILL.md":                skillMD("y", "top", "x"),
		".agents/skills/y/examples/inner/SKILL.md": skillMD("inner", "an example inside y", "x"),
		".agents/skills/node_modules/nm/SKILL.md":  skillMD("nm", "skipped", "x"),
		".agents/skills/" + deep:                   skillMD("toodeep", "too deep", "x"),
	})
	c := discover(t, Options{Cwd: dir, Root: rootCfg})
	if got := names(c.Skills); !cmp.Equal(got, []string{"x", "y"}) {
		t.Errorf("skills %v", got)
	}
}

// Limits stop the walk and say so.
func TestDiscoverLimits(t *testing.T) {
	files := map[string]string{}
	for i := range 5 {
		n := fmt.Sprintf("s%d", i)
		files[".agents/skills/"+n+"/SKILL.md"] = skillMD(n, "d", "x")
	}
	dir := tree(t, files)
	c := discover(t, Options{Cwd: dir, Root: rootCfg, MaxSkills: 3})
	if len(c.Skills) != 3 || !c.Truncated {
		t.Errorf("skills %v truncated %v", names(c.Skills), c.Truncated)
	}
}

// The cache answers an unchanged SKILL.md without reading or counting it,
// and a change (size or mtime) is read again.
func TestDiscoverCache(t *testing.T) {
	dir := tree(t, map[string]string{".agents/skills/a/SKILL.md": skillMD("a", "first", "one two")})
	cache := filepath.Join(t.TempDir(), "state")
	counted := 0
	counter := wordCounter
	counter.Fn = func(s string) int { counted++; return len(words(s)) }
	o := Options{Cwd: dir, Root: rootCfg, CacheDir: cache, Tokens: counter}
	for range 2 {
		c := discover(t, o)
		if s, _ := c.Find("a"); s.BodyTokens != 2 || s.Description != "first" {
			t.Fatalf("a = %+v", s)
		}
	}
	if counted != 1 {
		t.Errorf("counted %d times, want 1 (the second listing from the cache)", counted)
	}
	write(t, filepath.Join(dir, ".agents/skills/a/SKILL.md"), skillMD("a", "second", "one two three"))
	c := discover(t, o)
	if s, _ := c.Find("a"); s.BodyTokens != 3 || s.Description != "second" || counted != 2 {
		t.Errorf("after a change: %+v, counted %d", s, counted)
	}
	// Each project root has its own file: listing another project neither
	// reads nor rewrites this one's.
	other := tree(t, map[string]string{".agents/skills/b/SKILL.md": skillMD("b", "other", "w")})
	before, _ := os.ReadFile(CacheFile(cache, dir))
	discover(t, Options{Cwd: other, Root: rootCfg, CacheDir: cache, Tokens: counter})
	if after, _ := os.ReadFile(CacheFile(cache, dir)); string(after) != string(before) || len(before) == 0 {
		t.Errorf("listing another project changed this one's cache file")
	}
	if got := loadCache(CacheFile(cache, other)); len(got.entries) != 1 {
		t.Errorf("the other project's cache holds %d entries, want 1", len(got.entries))
	}
	// Another encoding is another count.
	o.Tokens = nil
	if s, _ := discover(t, Options{Cwd: dir, Root: rootCfg, CacheDir: cache}).Find("a"); s.BodyTokens == 0 {
		t.Errorf("o200k count = %d", s.BodyTokens)
	}
}

// Several processes listing at once share the cache file: each replaces it
// whole (temp + rename), so it is always a complete document every reader
// can use, and the listings agree.
func TestDiscoverCacheConcurrent(t *testing.T) {
	files := map[string]string{}
	for i := range 20 {
		n := fmt.Sprintf("s%02d", i)
		files[".agents/skills/"+n+"/SKILL.md"] = skillMD(n, "d "+n, strings.Repeat("w ", i))
	}
	dir := tree(t, files)
	cache := t.TempDir()
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for range 5 {
				c, err := Discover(Options{Cwd: dir, Root: rootCfg, CacheDir: cache, Tokens: wordCounter})
				if err != nil {
					errs <- err
					return
				}
				for i, s := range c.Skills {
					if s.BodyTokens != i {
						errs <- fmt.Errorf("worker %d: %s has %d tokens, want %d", w, s.Name, s.BodyTokens, i)
						c.Close()
						return
					}
				}
				c.Close()
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := loadCache(CacheFile(cache, dir)); len(got.entries) != 20 {
		t.Errorf("cache holds %d entries, want 20", len(got.entries))
	}
}

// Cursor's .cursor/skills is a skill folder, and a catalog for Cursor
// leaves it out (Cursor lists those itself), not a Claude Code catalog.
func TestDiscoverCursorSkills(t *testing.T) {
	dir := tree(t, map[string]string{
		".cursor/skills/deploy/SKILL.md": skillMD("deploy", "ship it", "x"),
	})
	c := discover(t, Options{Cwd: dir, Root: rootCfg})
	s, ok := c.Find("deploy")
	if !ok || s.Kind != ".cursor/skills" || s.Scope != ScopeProject {
		t.Fatalf("deploy = %+v, %v", s, ok)
	}
	if !ListedBy("cursor", s) || ListedBy("claude", s) {
		t.Errorf("ListedBy cursor %v, claude %v", ListedBy("cursor", s), ListedBy("claude", s))
	}
}
