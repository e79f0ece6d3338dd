package instructions

import (
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"pgregory.net/rapid"
)

func specs(refs []ImportRef) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%d:%s", r.Line, r.Spec))
	}
	return out
}

func TestScanImports(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"line start and after spaces", "@a.md\ntext @b.md and\t@c/d.md", []string{"1:a.md", "2:b.md", "2:c/d.md"}},
		{"path forms", "@./x.md @../y.md @/abs/z.md @~/home.md", []string{"1:./x.md", "1:../y.md", "1:/abs/z.md", "1:~/home.md"}},
		{"no extension needed", "see @README and @package.json", []string{"1:README", "1:package.json"}},
		{"trailing punctuation", "see @docs/git.md. Or (@a.md), @b.md;", []string{"1:docs/git.md", "1:b.md"}},
		{"not after a word", "mail me@example.com or x@y.md", nil},
		{"not a path", "@ @@x @- @~x @. @.. a @`x`", nil},
		{"url", "@https://example.com/x.md", nil},
		{"code span", "use `@a.md` but @b.md", []string{"1:b.md"}},
		{"double backtick span", "``code @a.md ` still`` @b.md", []string{"1:b.md"}},
		{"span over lines", "`start\n@a.md end` @b.md", []string{"2:b.md"}},
		{"unclosed span ends at blank line", "`open\n@a.md\n\n@b.md", []string{"4:b.md"}},
		{"fenced block", "```\n@a.md\n```\n@b.md", []string{"4:b.md"}},
		{"tilde fence with info", "~~~~ md\n@a.md\n~~~\n@b.md\n~~~~\n@c.md", []string{"6:c.md"}},
		{"longer close", "```\n@a.md\n`````\n@b.md", []string{"4:b.md"}},
		{"indented fence", "   ```\n@a.md\n   ```\n@b.md", []string{"4:b.md"}},
		{"four spaces is no fence", "    ~~~\n@a.md", []string{"2:a.md"}},
		{"inline triple is a span", "```x @a.md``` @b.md", []string{"1:b.md"}},
		{"unclosed fence", "```\n@a.md\n@b.md", nil},
		{"crlf", "@a.md\r\n@b.md\r\n", []string{"1:a.md", "2:b.md"}},
		{"list item", "- @a.md\n* @b.md", []string{"1:a.md", "2:b.md"}},
		{"unicode letter", "@доки.md", []string{"1:доки.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := specs(ScanImports(tc.text))
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ScanImports(%q) = %q, want %q", tc.text, got, want)
			}
		})
	}
}

// The scanner takes any text: specs are non-empty, hold no white space,
// come in line order, and never hold a backtick or a URL.
func FuzzScanImports(f *testing.F) {
	for _, s := range []string{"@a.md", "```\n@a\n```", "`@a` @b", "~~~\n@x\n~~~~\n@y", "@https://x", "a@b @c.d."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		refs := ScanImports(text)
		lines := strings.Count(text, "\n") + 1
		prev := 0
		for _, r := range refs {
			if r.Spec == "" || strings.ContainsAny(r.Spec, " \t\n\r\v\f`") || strings.Contains(r.Spec, "://") {
				t.Fatalf("bad spec %q in %q", r.Spec, text)
			}
			if r.Line < prev || r.Line < 1 || r.Line > lines {
				t.Fatalf("line %d out of order or range in %q", r.Line, text)
			}
			prev = r.Line
			if !strings.Contains(text, "@"+r.Spec) {
				t.Fatalf("spec %q is not in the text", r.Spec)
			}
		}
		if utf8.ValidString(text) && !strings.Contains(text, "@") && len(refs) != 0 {
			t.Fatalf("imports without an @: %v", refs)
		}
	})
}

func TestImportsLoadInDocumentOrderWithTree(t *testing.T) {
	root := testRepo(t, map[string]string{
		"AGENTS.md":      "top\n@docs/a.md\n`@docs/skip.md`\n@docs/b.md @missing.md",
		"docs/a.md":      "A @c.md",
		"docs/c.md":      "C @../AGENTS.md",
		"docs/b.md":      "B @a.md",
		"docs/skip.md":   "never",
		"sub/AGENTS.md":  "sub @../docs/b.md",
		"outside-ok.txt": "",
	})
	_, in := Start(opts(filepath.Join(root, "sub")))
	want := []string{filepath.Join(root, "AGENTS.md"), filepath.Join(root, "docs/a.md"), filepath.Join(root, "docs/c.md"), filepath.Join(root, "docs/b.md"), filepath.Join(root, "sub/AGENTS.md")}
	if got := paths(in.Files); !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	e := Explain(opts(filepath.Join(root, "sub")), "")
	var tree []string
	for _, d := range e.Dirs {
		tree = append(tree, fmt.Sprintf("%d %s %s %s", d.Depth, d.Status, d.Import, filepath.ToSlash(strings.TrimPrefix(d.Path, root))))
	}
	wantTree := []string{
		"0 loaded  /AGENTS.md",
		"1 loaded docs/a.md /docs/a.md",
		"2 loaded c.md /docs/c.md",
		"3 cycle ../AGENTS.md /AGENTS.md",
		"1 loaded docs/b.md /docs/b.md",
		"2 duplicate a.md /docs/a.md",
		"1 missing missing.md /missing.md",
		"0 loaded  /sub/AGENTS.md",
		"1 duplicate ../docs/b.md /docs/b.md",
	}
	if !slices.Equal(tree, wantTree) {
		t.Errorf("explain tree:\n%s\nwant:\n%s", strings.Join(tree, "\n"), strings.Join(wantTree, "\n"))
	}
}

func TestImportDepthAndCaps(t *testing.T) {
	files := map[string]string{"AGENTS.md": "@d1.md"}
	for i := 1; i <= 7; i++ {
		files[fmt.Sprintf("d%d.md", i)] = fmt.Sprintf("level %d @d%d.md", i, i+1)
	}
	root := testRepo(t, files)
	_, in := Start(opts(root))
	if len(in.Files) != 6 { // the file and 5 hops
		t.Errorf("loaded %d files, want 6: %q", len(in.Files), paths(in.Files))
	}
	e := Explain(opts(root), "")
	if d := e.Dirs[6]; d.Status != StatusImportDepth || d.Depth != 6 {
		t.Errorf("sixth hop: %+v", d)
	}
	// Imports count against the same caps, in document order.
	_, in = Start(opts(root, func(c *Config) { c.Initial.MaxFiles = 3 }))
	if len(in.Files) != 3 || !strings.Contains(strings.Join(in.Warnings, "\n"), "d3.md: not loaded (skipped:max-files") {
		t.Errorf("max files 3: %q %q", paths(in.Files), in.Warnings)
	}
	_, in = Start(opts(root, func(c *Config) { c.Imports.Enabled = false }))
	if len(in.Files) != 1 {
		t.Errorf("imports off: %q", paths(in.Files))
	}
}

func TestImportsStayInsideAllowedRoots(t *testing.T) {
	base := t.TempDir()
	outside := makeTree(t, filepath.Join(base, "outside"), map[string]string{"secret.md": "secret", "shared/ok.md": "shared"})
	root := makeTree(t, filepath.Join(base, "repo"), map[string]string{testMarker + "/": "",
		"AGENTS.md": "@../outside/secret.md @" + filepath.Join(outside, "secret.md @link.md @linkdir/secret.md @") + filepath.Join(outside, "shared/ok.md @~/h.md")})
	platformtest.Symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(root, "link.md"))
	platformtest.Symlink(t, outside, filepath.Join(root, "linkdir"))
	home := makeTree(t, filepath.Join(base, "home"), map[string]string{"h.md": "home"})
	o := opts(root)
	o.Home = home
	_, in := Start(o)
	if got := paths(in.Files); !slices.Equal(got, []string{filepath.Join(root, "AGENTS.md")}) {
		t.Errorf("loaded %q: an import escaped", got)
	}
	e := Explain(o, "")
	outsideN := 0
	for _, d := range e.Dirs {
		if d.Status == StatusOutsideRoot {
			outsideN++
		}
	}
	if outsideN != 6 {
		t.Errorf("%d imports refused as outside, want 6: %+v", outsideN, e.Dirs)
	}
	// Allowed roots open the way, "~/" included; the symlinks resolve inside
	// them.
	o.Config.Imports.AllowedRoots = []string{filepath.Join(outside, "shared"), "~"}
	_, in = Start(o)
	if got := paths(in.Files); !slices.Equal(got, []string{filepath.Join(root, "AGENTS.md"), filepath.Join(outside, "shared/ok.md"), filepath.Join(home, "h.md")}) {
		t.Errorf("with allowed roots: %q", got)
	}
	o.Config.Imports.AllowOutsideRoot = true
	_, in = Start(o)
	if len(in.Files) != 4 { // secret.md through three paths is one file
		t.Errorf("allow outside: %q", paths(in.Files))
	}
}

// Property: whatever the tree (imports up, down, absolute, through
// symlinks, in cycles), every loaded file's real path is under the root,
// the load terminates, and the same tree gives byte-identical output.
func TestImportsProperties(t *testing.T) {
	withLinks := canSymlink(t)
	rapid.Check(t, func(rt *rapid.T) {
		base, err := os.MkdirTemp("", "imports-prop")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(base)
		root := filepath.Join(base, "repo")
		outside := filepath.Join(base, "out")
		names := []string{"AGENTS.md", "a.md", "d/b.md", "d/e/c.md", "x.md"}
		targets := []string{"AGENTS.md", "a.md", "d/b.md", "d/e/c.md", "../out/o.md", "../../etc/passwd", "/etc/hostname", "link.md", "dl/o.md", "nope.md", "x.md"}
		makeTree(t, outside, map[string]string{"o.md": "outside @../repo/a.md"})
		files := map[string]string{testMarker + "/": ""}
		for _, n := range names {
			var b strings.Builder
			for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(targets)-1), 0, 4).Draw(rt, "imports of "+n) {
				spec := targets[i]
				if !strings.HasPrefix(spec, "/") {
					rel, _ := filepath.Rel(filepath.Dir(filepath.Join(root, n)), filepath.Join(root, spec))
					spec = filepath.ToSlash(rel)
				}
				b.WriteString(rapid.SampledFrom([]string{"", "text ", "- "}).Draw(rt, "prefix") + "@" + spec + "\n")
			}
			files[n] = b.String()
		}
		makeTree(t, root, files)
		// Where Windows refuses symbolic links (no SeCreateSymbolicLinkPrivilege
		// outside an administrator or Developer Mode), the links stay absent
		// and imports through them are missing files; the property still
		// holds for the rest of the tree.
		if withLinks {
			platformtest.Symlink(rt, filepath.Join(outside, "o.md"), filepath.Join(root, "link.md"))
			platformtest.Symlink(rt, outside, filepath.Join(root, "dl"))
		}
		o := opts(filepath.Join(root, "d/e"))
		o.Home = base
		_, in := Start(o)
		realRoot, _ := filepath.EvalSymlinks(root)
		for _, f := range in.Files {
			real, err := filepath.EvalSymlinks(f.Path)
			if err != nil || !within(realRoot, real) {
				rt.Fatalf("loaded %s (real %s, %v): outside the root", f.Path, real, err)
			}
		}
		first, _ := json.Marshal(Explain(o, ""))
		_, again := Start(o)
		second, _ := json.Marshal(Explain(o, ""))
		if in.Text != again.Text || string(first) != string(second) {
			rt.Fatalf("two loads of one tree differ")
		}
	})
}

// A harness that loads a file itself and follows its imports has them too:
// with PreloadedImports their bodies stay out of the block.
func TestPreloadedImports(t *testing.T) {
	root := testRepo(t, map[string]string{"CLAUDE.md": "claude @AGENTS.md", "AGENTS.md": "shared @docs/x.md", "docs/x.md": "x", "sub/CLAUDE.md": "sub"})
	o := opts(filepath.Join(root, "sub"), func(c *Config) { c.FileNames = []string{"CLAUDE.md"} })
	o.Preloaded = func(p string) bool { return p == filepath.Join(root, "CLAUDE.md") }
	_, in := Start(o)
	if !strings.Contains(in.Text, "shared") || !strings.Contains(in.Text, "\nx\n") || len(in.Files) != 4 {
		t.Errorf("without PreloadedImports the imports' bodies are sent:\n%s", in.Text)
	}
	o.PreloadedImports = true
	_, in = Start(o)
	if strings.Contains(in.Text, "shared") || strings.Contains(in.Text, "\nx\n") || !strings.Contains(in.Text, "\nsub\n") || len(in.Files) != 4 {
		t.Errorf("with PreloadedImports:\n%s", in.Text)
	}
}

// canSymlink reports whether the OS creates symbolic links here: always on
// Unix; on Windows only with the symlink privilege, and a test that can run
// without them logs that it does.
func canSymlink(t *testing.T) bool {
	t.Helper()
	dir := t.TempDir()
	err := os.Symlink(dir, filepath.Join(dir, "link"))
	if err != nil && runtime.GOOS == "windows" {
		t.Logf("running without symbolic links: Windows refused one (creating them takes the SeCreateSymbolicLinkPrivilege of an administrator or Developer Mode): %v", err)
		return false
	}
	return true
}
