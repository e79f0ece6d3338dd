package instructions

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInitialRenderingIsExact(t *testing.T) {
	root := testRepo(t, map[string]string{
		"AGENTS.md":       "Root rules.\n\n  \t\n",
		"a/AGENTS.md":     "  Indented first line stays.\nA rules.",
		"a/b/AGENTS.md":   "\n \n",
		"a/b/c/AGENTS.md": "Leaf rules.\r\n",
	})
	_, in := Start(opts(filepath.Join(root, "a", "b", "c")))
	want := "<agents_context scope=\"initial\">\n" +
		"Instructions from: " + filepath.Join(root, "AGENTS.md") + "\nRoot rules.\n\n" +
		"Instructions from: " + filepath.Join(root, "a/AGENTS.md") + "\n  Indented first line stays.\nA rules.\n\n" +
		"Instructions from: " + filepath.Join(root, "a/b/c/AGENTS.md") + "\nLeaf rules.\n" +
		"</agents_context>"
	if in.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", in.Text, want)
	}
	// The empty file is registered (loaded) but renders nothing.
	wantFiles := []string{filepath.Join(root, "AGENTS.md"), filepath.Join(root, "a/AGENTS.md"), filepath.Join(root, "a/b/AGENTS.md"), filepath.Join(root, "a/b/c/AGENTS.md")}
	if diff := cmp.Diff(wantFiles, paths(in.Files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{root, filepath.Join(root, "a"), filepath.Join(root, "a/b"), filepath.Join(root, "a/b/c")}, in.CoveredDirs); diff != "" {
		t.Errorf("covered dirs (-want +got):\n%s", diff)
	}
	if in.Dirs[2].Status != StatusEmpty {
		t.Errorf("empty file status = %s", in.Dirs[2].Status)
	}
}

func TestInitialNothingLoadedPrintsNothing(t *testing.T) {
	root := testRepo(t, map[string]string{"a/": "", "b/AGENTS.md": "   \n"})
	for _, cwd := range []string{filepath.Join(root, "a"), filepath.Join(root, "b")} {
		if _, in := Start(opts(cwd)); in.Text != "" {
			t.Errorf("text for %s = %q, want none", cwd, in.Text)
		}
	}
}

func TestInitialInvalidUTF8IsReplacedWithWarning(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "caf\xe9 \xff\xfe ok"})
	_, in := Start(opts(root))
	if !strings.Contains(in.Text, "caf\uFFFD \uFFFD ok") {
		t.Errorf("text = %q, want U+FFFD replacements", in.Text)
	}
	want := []string{filepath.Join(root, "AGENTS.md: invalid UTF-8 replaced with U+FFFD")}
	if diff := cmp.Diff(want, in.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// A file saved with CRLF line endings (Windows editors) reaches the block
// with the block's own LF endings, never mixed.
func TestInitialCRLFBecomesLF(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "# Rules\r\nRun the tests.\r\nA lone \r stays.\r\n"})
	_, in := Start(opts(root))
	if !strings.Contains(in.Text, "# Rules\nRun the tests.\nA lone \r stays.\n") || strings.Contains(in.Text, "\r\n") {
		t.Errorf("text = %q, want LF line endings", in.Text)
	}
}

func TestInitialCwdOutsideRootIsEmpty(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "x", "inside/": ""})
	other := makeTree(t, t.TempDir(), map[string]string{"AGENTS.md": "y"})
	_, in := Start(opts(other, func(c *Config) { c.Root.ProjectRootOverride = root }))
	if len(in.Files) != 0 || in.Text != "" || in.Root != root || in.RootSource != "override" {
		t.Errorf("got %+v, want an empty chain under the override", in)
	}
}

func TestInitialDisabled(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "x"})
	s, in := Start(opts(root, func(c *Config) { c.Enabled = false }))
	if len(in.Files) != 0 || in.Text != "" {
		t.Errorf("disabled initial loaded %v", paths(in.Files))
	}
	if r := s.Resolve(root); len(r.Files) != 0 {
		t.Errorf("disabled resolve returned %v", paths(r.Files))
	}
}

// Caps stop loading (never truncate), count UTF-8 bytes of the trimmed
// content, load an exact fit, and leave capped files unregistered so a
// later resolve reports them as new.
func TestInitialCaps(t *testing.T) {
	// "é" is two UTF-8 bytes: each file below is 6 content bytes, the
	// trailing newline being trimmed.
	files := map[string]string{"AGENTS.md": "ééé\n", "a/AGENTS.md": "ééé\n", "a/b/AGENTS.md": "x\n"}
	tests := []struct {
		name       string
		maxFiles   int
		maxBytes   int
		wantLoaded int
		wantStatus []Status
	}{
		{"no cap reached", 16, 1000, 3, []Status{StatusLoaded, StatusLoaded, StatusLoaded}},
		{"max files stops", 2, 1000, 2, []Status{StatusLoaded, StatusLoaded, StatusMaxFiles}},
		{"max files 1", 1, 1000, 1, []Status{StatusLoaded, StatusMaxFiles, StatusMaxFiles}},
		{"bytes counted in UTF-8: 5 < 6", 16, 5, 0, []Status{StatusMaxBytes, StatusMaxBytes, StatusMaxBytes}},
		{"exact fit of one file loads", 16, 6, 1, []Status{StatusLoaded, StatusMaxBytes, StatusMaxBytes}},
		{"exact fit of all files loads", 16, 13, 3, []Status{StatusLoaded, StatusLoaded, StatusLoaded}},
		{"stop, not skip: a smaller later file is not loaded", 16, 11, 1, []Status{StatusLoaded, StatusMaxBytes, StatusMaxBytes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testRepo(t, copyMap(files))
			s, in := Start(opts(filepath.Join(root, "a", "b"), func(c *Config) {
				c.Initial.MaxFiles, c.Initial.MaxBytes = tt.maxFiles, tt.maxBytes
			}))
			if len(in.Files) != tt.wantLoaded {
				t.Errorf("loaded %v, want %d files", paths(in.Files), tt.wantLoaded)
			}
			var got []Status
			for _, d := range in.Dirs {
				got = append(got, d.Status)
			}
			if diff := cmp.Diff(tt.wantStatus, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			for _, f := range in.Files {
				if !strings.Contains(in.Text, "Instructions from: "+f.Path+"\n") {
					t.Errorf("%s loaded but not rendered whole", f.Path)
				}
			}
			if strings.Contains(in.Text, "é\nx") || strings.Count(in.Text, "ééé") != min(tt.wantLoaded, 2) {
				t.Errorf("a file was truncated or added: %q", in.Text)
			}
			// The capped files are reported as new by the resolver.
			r := s.Resolve(filepath.Join(root, "a", "b"))
			if len(r.Files) != 3-tt.wantLoaded {
				t.Errorf("resolve after the cap = %v, want the %d capped files", reasons(r.Files), 3-tt.wantLoaded)
			}
			for _, f := range r.Files {
				if f.Reason != ReasonNew {
					t.Errorf("%s reason %q, want new", f.Path, f.Reason)
				}
			}
		})
	}
}

func copyMap(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// The upstream TypeScript has no tests for its caps; ours stop at the
// first file over the cap and surface everything after it as new.
func TestBeyondReferenceCapsStopAndSurfaceAsNew(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "1234", "a/AGENTS.md": "123456", "a/b/AGENTS.md": "1"})
	s, in := Start(opts(filepath.Join(root, "a", "b"), func(c *Config) { c.Initial.MaxBytes = 5 }))
	if diff := cmp.Diff([]string{filepath.Join(root, "AGENTS.md")}, paths(in.Files)); diff != "" {
		t.Fatalf("loaded (-want +got):\n%s", diff)
	}
	r := s.Resolve(filepath.Join(root, "a", "b", "file.go"))
	want := []string{"new " + filepath.Join(root, "a/AGENTS.md"), "new " + filepath.Join(root, "a/b/AGENTS.md")}
	if diff := cmp.Diff(want, reasons(r.Files)); diff != "" {
		t.Errorf("resolve (-want +got):\n%s", diff)
	}
}
