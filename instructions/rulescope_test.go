package instructions

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/frontmatter"
)

func TestRuleScopeDialects(t *testing.T) {
	for _, tt := range []struct {
		name, fm string
		mdc      bool
		always   bool
		patterns []string
		err      string
	}{
		{name: "no front matter", always: true},
		{name: "description only", fm: "description: x", always: true},
		{name: "claude paths", fm: "paths: \"web/**/*.tsx\"", patterns: []string{"web/**/*.tsx"}},
		{name: "cursor globs, commas outside braces", fm: "globs: src/**/*.ts, lib/*.{js,jsx}", patterns: []string{"src/**/*.ts", "lib/*.{js,jsx}"}},
		{name: "cursor globs list", fm: "globs:\n  - \"a/**\"\n  - \"b/*.go\"", patterns: []string{"a/**", "b/*.go"}},
		{name: "copilot applyTo", fm: "applyTo: \"**/*.py,docs/**\"", patterns: []string{"**/*.py", "docs/**"}},
		{name: "copilot applyTo everything", fm: "applyTo: \"**\"", always: true},
		{name: "alwaysApply wins over globs", fm: "globs: \"*.go\"\nalwaysApply: true", always: true},
		{name: "mdc always", fm: "description: d\nalwaysApply: true", mdc: true, always: true},
		{name: "mdc agent-requested", fm: "description: d\nalwaysApply: false", mdc: true},
		{name: "mdc manual, no front matter", mdc: true},
		{name: "md alwaysApply false, no globs", fm: "alwaysApply: false"},
		{name: "empty globs", fm: "globs:\nalwaysApply: false", mdc: true},
		{name: "unknown key", fm: "when: web", err: `front matter: unknown key "when"`},
		{name: "alwaysApply not a bool", fm: "alwaysApply: yes please", err: "front matter: alwaysApply: want true or false"},
		{name: "globs a number", fm: "globs: 3", err: "front matter: globs: want a glob or a list of globs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := "body"
			if tt.fm != "" {
				data = "---\n" + tt.fm + "\n---\nbody"
			}
			var fm map[string]any
			if _, _, err := frontmatter.Decode([]byte(data), &fm, false); err != nil {
				t.Fatal(err)
			}
			sc, err := ruleScope(fm, tt.mdc)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case sc.always != tt.always || !slices.Equal(sc.patterns, tt.patterns):
				t.Fatalf("scope = %+v, want always %v patterns %q", sc, tt.always, tt.patterns)
			}
		})
	}
}

// TestRuleDialectsLoad: a Cursor or Copilot rule with globs waits for a
// matching path, like a Claude Code rule with paths; an unknown key is a
// warning and the rule never loads.
func TestRuleDialectsLoad(t *testing.T) {
	root := testRepo(t, map[string]string{
		"AGENTS.md":                   "top",
		".cursor/rules/always.mdc":    "---\ndescription: d\nalwaysApply: true\n---\nCursor always.",
		".cursor/rules/ts.mdc":        "---\nglobs: web/**/*.ts\nalwaysApply: false\n---\nCursor ts.",
		".cursor/rules/asked.mdc":     "---\ndescription: only when asked\n---\nCursor asked.",
		".cursor/rules/py.md":         "---\napplyTo: \"**/*.py\"\n---\nCopilot py.",
		".cursor/rules/odd.md":        "---\nwhen: web\n---\nOdd.",
		".cursor/rules/plain.md":      "Plain always.",
		".cursor/rules/notes.mdc.txt": "not a rule",
	})
	o := opts(root)
	o.FS = listingFS{newCountingFS()}
	s, in := Start(o)
	want := []string{filepath.Join(root, "AGENTS.md"), filepath.Join(root, ".cursor/rules/always.mdc"), filepath.Join(root, ".cursor/rules/plain.md")}
	if got := paths(in.Files); !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	if w := strings.Join(in.Warnings, "\n"); !strings.Contains(w, "odd.md: front matter: unknown key \"when\"") {
		t.Errorf("warnings:\n%s", w)
	}
	for target, rule := range map[string]string{"web/a/b.ts": "ts.mdc", "tools/x.py": "py.md"} {
		r := s.Resolve(target)
		if got := reasons(r.Files); !slices.Equal(got, []string{"new " + filepath.Join(root, ".cursor/rules", rule)}) {
			t.Errorf("resolve %s: %q", target, got)
		}
	}
	if r := s.Resolve("web/readme.md"); len(r.Files) != 0 {
		t.Errorf("resolve web/readme.md: %q", reasons(r.Files))
	}
}

// FuzzRuleScope: any front matter a rule file may carry gives a scope or
// an error, never a panic, and a scoped rule's patterns are non-empty
// strings.
func FuzzRuleScope(f *testing.F) {
	// The seed corpus is testdata/fuzz/FuzzRuleScope: Cursor, Copilot and
	// Claude Code rules, a bad list, an unknown key.
	f.Add([]byte("---\nglobs: a/**, b/*.{c,h}\n---\nx"), true)
	f.Fuzz(func(t *testing.T, data []byte, mdc bool) {
		var fm map[string]any
		if _, _, err := frontmatter.Decode(data, &fm, false); err != nil {
			return
		}
		sc, err := ruleScope(fm, mdc)
		if err != nil {
			return
		}
		for _, p := range sc.patterns {
			if strings.TrimSpace(p) == "" || p != strings.TrimSpace(p) {
				t.Fatalf("pattern %q from %q", p, data)
			}
		}
		if sc.always && sc.patterns != nil {
			t.Fatalf("always with patterns %q from %q", sc.patterns, data)
		}
		_ = fmt.Sprint(sc)
	})
}
