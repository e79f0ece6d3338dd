package instructions

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/main.go", true},
		{"**/*.go", "a/b/main.ts", false},
		{"src/**/*", "src/a/b.ts", true},
		{"src/**/*", "src", false},
		{"src/**", "src", true},
		{"web/**/*.tsx", "web/x.tsx", true},
		{"*.{ts,tsx}", "a.tsx", true},
		{"*.{ts,tsx}", "a.js", false},
		{"*.{ts,tsx}", "d/a.ts", false},
		{"{src,lib}/**/*.{go,md}", "lib/x/y.md", true},
		{"packages/legacy-*/**", "packages/legacy-ui/AGENTS.md", true},
		{"a/?/c", "a/b/c", true},
		{"a/[bc]/d", "a/c/d", true},
		{"**/**/x", "x", true},
		{"**/a/**/a/**/a/**/b", strings.Repeat("a/", 40) + "c", false},
	} {
		g, err := compileGlob(tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := g.match(tc.path); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
	for _, bad := range []string{"", "  ", "a[", "[", strings.Repeat("{a,b}", 9)} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

// Globs come from config files and front matter: any pattern compiles or
// is refused, and matching never panics.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/*.go", "{a,b}/**", "a[", "src/**/*.{ts,tsx}", "\\{x}"} {
		f.Add(s, "src/a/b.ts")
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		g.match(p)
	})
}
