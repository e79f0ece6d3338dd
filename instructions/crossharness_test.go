package instructions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// harnessProfiles are the settings that make lineage load what each
// harness loads (docs/instructions.md, "Cross-harness fixture").
var harnessProfiles = map[string]func(*Config){
	"Claude Code": func(c *Config) {
		c.FileNames = []string{"CLAUDE.md", "AGENTS.md"}
		c.Rules.Dirs = []string{".claude/rules"}
	},
	"Gemini CLI": func(c *Config) {
		c.FileNames = []string{"GEMINI.md"}
		c.Rules.Enabled = false
	},
	"Codex CLI": func(c *Config) {
		c.FileNames = []string{"AGENTS.override.md", "AGENTS.md"}
		c.Imports.Enabled = false
		c.Rules.Enabled = false
	},
}

// crossHarnessTable reads the table of docs/instructions.md between its
// markers: file → harness → "start" / "touch" / "—".
func crossHarnessTable(t *testing.T) (harnesses []string, rows map[string]map[string]string) {
	data, err := os.ReadFile("../docs/instructions.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- cross-harness table: checked by instructions.TestCrossHarnessFixture -->\n")
	table, _, ok2 := strings.Cut(rest, "\n\n")
	if !ok || !ok2 {
		t.Fatal("docs/instructions.md: no cross-harness table")
	}
	rows = map[string]map[string]string{}
	for i, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		switch i {
		case 0:
			harnesses = cells[1:]
		case 1:
		default:
			file := strings.Trim(cells[0], "`")
			rows[file] = map[string]string{}
			for j, h := range harnesses {
				when, _, _ := strings.Cut(cells[j+1], " ")
				rows[file][h] = when
			}
		}
	}
	return harnesses, rows
}

// crossHarnessRepo writes the fixture into a temporary directory and
// returns its root.
func crossHarnessRepo(t testing.TB) string {
	ar, err := txtar.ParseFile("testdata/crossharness.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "repo")
	for _, f := range ar.Files {
		p := filepath.Join(root, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCrossHarnessFixture(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/crossharness.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := crossHarnessRepo(t)
	harnesses, rows := crossHarnessTable(t)
	if len(harnesses) != 3 || len(rows) != len(ar.Files)-2 { // every file but .git/HEAD and the unimported doc
		t.Fatalf("table: %d harnesses, %d rows for %d fixture files", len(harnesses), len(rows), len(ar.Files))
	}
	rel := func(files []File) []string {
		out := []string{}
		for _, f := range files {
			out = append(out, filepath.ToSlash(strings.TrimPrefix(f.Path, root+string(filepath.Separator))))
		}
		slices.Sort(out)
		return out
	}
	for _, h := range harnesses {
		profile, ok := harnessProfiles[h]
		if !ok {
			t.Fatalf("no profile for %q", h)
		}
		c := DefaultConfig()
		profile(&c)
		s, in := Start(Options{Config: c, Cwd: filepath.Join(root, "web")})
		touched := s.Resolve("src/components/Button.tsx")
		want := map[string][]string{"start": {}, "touch": {}}
		for file, by := range rows {
			if w := by[h]; w == "start" || w == "touch" {
				want[w] = append(want[w], file)
			}
		}
		slices.Sort(want["start"])
		slices.Sort(want["touch"])
		if got := rel(in.Files); !slices.Equal(got, want["start"]) {
			t.Errorf("%s at start: lineage loads %q, the table says %q", h, got, want["start"])
		}
		if got := rel(touched.Files); !slices.Equal(got, want["touch"]) {
			t.Errorf("%s on touching web/src/components/Button.tsx: lineage reports %q, the table says %q", h, got, want["touch"])
		}
	}
}
