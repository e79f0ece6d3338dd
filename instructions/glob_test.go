package instructions

import (
	"runtime"
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
// is refused, and matching never panics. What a compiled pattern holds is
// bounded before any expansion: its size, at most maxBraceAlternatives
// alternatives, none longer than the pattern. Those bounds are what make
// a pattern's time and memory bounded; BenchmarkGlobBounds measures the
// worst patterns the bounds let through.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/*.go", "{a,b}/**", "a[", "src/**/*.{ts,tsx}", "\\{x}", "{a,{b,{c,d}}}", "{,}{,}{,}{,}{,}{,}{,}{,}{,}", "{{{{{{{{{x}}}}}}}}}", "{a,b"} {
		f.Add(s, "src/a/b.ts")
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		if len(pattern) > MaxPatternBytes || len(g.alts) > maxBraceAlternatives {
			t.Fatalf("%q (%d bytes) compiled to %d alternatives", pattern, len(pattern), len(g.alts))
		}
		for _, a := range g.alts {
			if n := len(strings.Join(a, "/")); n > len(pattern) {
				t.Fatalf("%q: an alternative of %d bytes", pattern, n)
			}
		}
		g.match(p)
	})
}

// TestPatternBombsRefusedBeforeExpansion: patterns that expand to very
// many alternatives, or recurse deep, are refused with a message naming
// the bound, having allocated little (the 63 KB rule of issue #43 cost
// 272 MB): the heap bytes allocated by each refusal are counted.
func TestPatternBombsRefusedBeforeExpansion(t *testing.T) {
	for name, c := range map[string]struct {
		pattern, want string
	}{
		"size":         {strings.Repeat("{a,b}", 13000), "the limit is 1024"},
		"groups":       {strings.Repeat("{x}", 40), "more than 32 brace groups"},
		"alternatives": {strings.Repeat("{a,b}", 9), "more than 256 alternatives"},
		"wide":         {"{" + strings.Repeat("a,", 300) + "b}", "more than 256 alternatives"},
		"depth":        {strings.Repeat("{a,", 9) + strings.Repeat("}", 9), "nests braces more than 8 deep"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := compileGlob(c.pattern)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<10 {
			t.Errorf("%s: refusing allocated %d bytes", name, alloc)
		}
	}
	for _, ok := range []string{strings.Repeat("{a,b}", 8), "{" + strings.Repeat("a,", 255) + "b}", strings.Repeat("{a,", 8) + strings.Repeat("}", 8)} {
		if g, err := compileGlob(ok); err != nil || len(g.alts) == 0 {
			t.Errorf("%.40q: %v", ok, err)
		}
	}
}

// BenchmarkGlobBounds compiles and matches the costliest patterns the
// bounds accept: 256 alternatives of a pattern near MaxPatternBytes, and
// a refused 63 KB bomb.
func BenchmarkGlobBounds(b *testing.B) {
	wide := strings.Repeat("{a,b}", 8) + "/" + strings.Repeat("x", MaxPatternBytes-60)
	for name, p := range map[string]string{"accepted-256x1KB": wide, "refused-63KB": strings.Repeat("{a,b}", 13000)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if g, err := compileGlob(p); err == nil {
					g.match("a/b/c.go")
				}
			}
		})
	}
}
