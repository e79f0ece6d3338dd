package deptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureMapIsThePackageGraph compares docs/architecture.md's
// package map and wings with the module's real import graph.
func TestArchitectureMapIsThePackageGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	touchSources(t, root)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMap("docs/architecture.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Wings) != 2 || len(m.Meet) == 0 {
		t.Errorf("the map names wings %v meeting in %v; want two wings and where they meet", m.Wings, m.Meet)
	}
	pkgs, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range CheckMap(m, pkgs) {
		t.Error(p)
	}
}

const sampleDoc = "# A\n\n## Package map\n\ntext\n\n```\n" +
	"cmd/x        main\n" +
	"face         the face\n" +
	"             more words\n" +
	"left\n" +
	"right\n" +
	"base         the base\n" +
	"```\n\n## Two wings\n\n```\n" +
	"left wing    left\n" +
	"right wing   right,\n" +
	"             right/...\n" +
	"meet in      face, cmd/...\n" +
	"```\n"

func TestParseMap(t *testing.T) {
	m, err := ParseMap("a.md", []byte(sampleDoc))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cmd/x", "face", "left", "right", "base"}; !slices.Equal(m.Packages, want) {
		t.Errorf("Packages = %q, want %q", m.Packages, want)
	}
	if !slices.Equal(m.Wings["left"], []string{"left"}) || !slices.Equal(m.Wings["right"], []string{"right", "right/..."}) || len(m.Wings) != 2 {
		t.Errorf("Wings = %q", m.Wings)
	}
	if !slices.Equal(m.Meet, []string{"face", "cmd/..."}) {
		t.Errorf("Meet = %q", m.Meet)
	}
	for doc, want := range map[string]string{
		"# A\n":                                    `a.md: no section "## Package map"`,
		"## Package map\n\n## Two wings\n":         `a.md: no code block under "## Package map"`,
		"## Package map\n```\nx\n":                 `a.md: the code block under "## Package map" does not end`,
		"## Package map\n```\nx\ny\nx  again\n```": "a.md:5: x is listed already on line 3",
		"## Package map\n```\nx\n```\n## Two wings\n```\nleft wing left\n```":       `a.md:7: want a label, two spaces and packages, got "left wing left"`,
		"## Package map\n```\nx\n```\n## Two wings\n```\nside  x\n```":              `a.md:7: label "side" is neither "NAME wing" nor "meet in"`,
		"## Package map\n```\nx\n```\n## Two wings\n```\n   x\n```":                 "a.md:7: a continuation line before any label",
		"## Package map\n```\nx\n```\n## Two wings\n```\na wing  x\na wing  y\n```": "a.md:8: wing a is listed already",
	} {
		if _, err := ParseMap("a.md", []byte(doc)); err == nil || err.Error() != want {
			t.Errorf("ParseMap(%q) = %v, want %s", doc, err, want)
		}
	}
}

// TestCheckMapCatchesEachMismatch breaks a matching graph one way at a
// time.
func TestCheckMapCatchesEachMismatch(t *testing.T) {
	m, err := ParseMap("a.md", []byte(sampleDoc))
	if err != nil {
		t.Fatal(err)
	}
	p := func(path string, imports ...string) Package {
		full := func(s []string) []string {
			var out []string
			for _, x := range s {
				out = append(out, Module+"/"+x)
			}
			return out
		}
		return Package{ImportPath: Module + "/" + path, Imports: full(imports), Deps: full(imports)}
	}
	good := []Package{p("cmd/x", "face"), p("face", "left", "right", "base"), p("left", "base"), p("right", "base"), p("base")}
	if got := CheckMap(m, good); len(got) != 0 {
		t.Fatalf("a graph that matches: %q", got)
	}
	for _, tt := range []struct {
		name string
		pkgs []Package
		want string
	}{
		{"missing package", good[:4], "docs/architecture.md's map lists base, which is not a package of the module"},
		{"unlisted package", append(slices.Clone(good), p("extra")), "extra is a package of the module that docs/architecture.md's map does not list"},
		{"import up the list", append(slices.Clone(good[:4]), p("base", "face")), "base imports face, which the map lists above it (imports point down the list)"},
		{"wing into wing", append(slices.Clone(good[:2]), p("left", "right", "base"), good[3], good[4]),
			"left (left wing) depends on right (right wing): the wings meet only in face, cmd/..."},
	} {
		got := CheckMap(m, tt.pkgs)
		if !slices.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	// A package both wings reach, listed but not where they meet.
	m2 := m
	pkgs := append(slices.Clone(good), p("both", "left", "right"))
	m2.Packages = []string{"cmd/x", "face", "both", "left", "right", "base"}
	if got := CheckMap(m2, pkgs); !slices.Contains(got, "both reaches both wings, but the map does not list it where they meet") {
		t.Errorf("both: %q", got)
	}
	// A wing naming a package that does not exist.
	m3 := m
	m3.Wings = map[string][]string{"left": {"left", "gone/..."}, "right": {"right"}}
	if got := strings.Join(CheckMap(m3, good), "\n"); !strings.Contains(got, "the left wing names gone/..., which is not a package of the module") {
		t.Errorf("gone: %s", got)
	}
}
