package deptest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestModuleKeepsTheRules checks the real import graph.
func TestModuleKeepsTheRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	touchSources(t, root)
	pkgs, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; want the whole module", len(pkgs))
	}
	for _, v := range Check(pkgs, Rules) {
		t.Error(v)
	}
}

// touchSources stats every Go file of the module, so that go test's cache,
// which knows only the files a test itself opens, runs this test again
// when an import changes.
func touchSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && p != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEachRuleCatchesAForbiddenImport adds, rule by rule, one forbidden
// import to a package the rule covers, and one allowed import beside it.
func TestEachRuleCatchesAForbiddenImport(t *testing.T) {
	m := func(p string) string { return Module + "/" + p }
	tests := []struct {
		rule       string
		pkg, dep   string
		allowed    string // a dependency the rule lets pkg have
		transitive bool   // the rule follows indirect dependencies
	}{
		{Rules[0].Name, m("tract"), m("tract/sqlite"), m("internal/canon"), true},
		{Rules[0].Name, m("instructions"), "github.com/jackc/pgx/v5/pgxpool", m("internal/fsx"), true},
		{Rules[1].Name, m("tract/stores"), m("internal/cli"), m("tract/sqlite"), true},
		{Rules[1].Name, m("journal"), m("mcpserver"), m("agents"), true},
		{Rules[2].Name, m("mcpserver"), m("internal/cli"), m("tract"), true},
		{Rules[3].Name, m("mcpserver"), m("tract/stores"), m("tract"), false},
		{Rules[4].Name, m("tract/postgres"), "modernc.org/sqlite", m("tract"), false},
		{Rules[5].Name, m("internal/cli"), "github.com/jackc/pgx/v5", m("tract/stores"), false},
		{Rules[6].Name, m("tract"), "github.com/tiktoken-go/tokenizer", m("internal/tokens"), false},
		{Rules[7].Name, m("tract/storetest"), m("tract/internal/rowform"), m("tract"), false},
		{Rules[7].Name, m("tract/stores"), m("tract/internal/rowform"), m("tract/sqlite"), false},
		{Rules[8].Name, m("journal"), "github.com/go-git/go-git/v5/plumbing/format/config", m("agents"), false},
		{Rules[9].Name, m("hooks"), "go.yaml.in/yaml/v3", m("internal/frontmatter"), false},
		{Rules[10].Name, m("compose"), m("tract/sqlite"), m("tract"), true},
		{Rules[11].Name, m("tract"), m("compose"), m("internal/tokens"), true},
		{Rules[11].Name, m("hooks"), m("compose"), m("instructions"), true},
		{Rules[12].Name, m("sessions"), m("instructions"), m("tract"), true},
		{Rules[13].Name, m("journal"), m("internal/platformtest"), m("internal/fsx"), false},
		{Rules[14].Name, m("mcpserver"), m("instructions/fstest"), m("instructions"), false},
		{Rules[15].Name, m("tract"), m("tract/wire"), m("internal/tokens"), true},
		{Rules[15].Name, m("tract/sqlite"), m("tract/wire"), m("tract"), true},
		{CLIGroupsRule, m("internal/cli/contextcmd"), m("internal/cli/tractcmd"), m("internal/cli/clienv"), true},
		{CLIGroupsRule, m("internal/cli/clienv"), m("internal/cli/mcpcmd"), m("mcpserver"), true},
		{TractTextRule, m("mcpserver"), m("internal/cli/tracttext"), m("tract"), false},
		{TractTextRule, m("tract"), m("internal/cli/tracttext"), m("internal/tokens"), false},
		{TractTextBaseRule, m("internal/cli/tracttext"), m("internal/cli/clienv"), m("tract"), true},
		{TractTextBaseRule, m("internal/cli/tracttext"), m("internal/cli/tractcmd"), m("tract"), true},
		{ConfigRule, m("mcpserver"), m("internal/config"), m("instructions"), false},
		{ConfigRule, m("cmd/lineage"), m("internal/config"), m("internal/cli"), false},
		{ConfigFacesRule, m("internal/config"), m("hooks"), m("instructions"), true},
		{ConfigFacesRule, m("internal/config"), m("internal/cli/clienv"), m("tract/stores"), true},
	}
	for _, tt := range tests {
		var rule []Rule
		for _, r := range Rules {
			if r.Name == tt.rule {
				rule = append(rule, r)
			}
		}
		if len(rule) != 1 {
			t.Fatalf("no rule %q", tt.rule)
		}
		direct := Package{ImportPath: tt.pkg, Imports: []string{tt.allowed, tt.dep}, Deps: []string{tt.allowed, tt.dep}}
		got := Check([]Package{direct}, rule)
		if len(got) != 1 || got[0].Dep != tt.dep || got[0].Package != tt.pkg {
			t.Errorf("%s: %s importing %s gave %v, want one violation", tt.rule, tt.pkg, tt.dep, got)
		}
		// Reached through an allowed package only.
		indirect := Package{ImportPath: tt.pkg, Imports: []string{tt.allowed}, Deps: []string{tt.allowed, tt.dep}}
		if got := Check([]Package{indirect}, rule); (len(got) == 1) != tt.transitive {
			t.Errorf("%s: %s reaching %s indirectly gave %v", tt.rule, tt.pkg, tt.dep, got)
		}
		if got := Check([]Package{{ImportPath: tt.pkg, Imports: []string{tt.allowed}, Deps: []string{tt.allowed}}}, rule); len(got) != 0 {
			t.Errorf("%s: the allowed %s was flagged: %v", tt.rule, tt.allowed, got)
		}
	}
	// The whole table on the real module plus one bad edge fails exactly there.
	bad := Package{ImportPath: m("triad"), Imports: []string{m("mcpserver")}, Deps: []string{m("mcpserver")}}
	got := Check([]Package{bad}, Rules)
	if len(got) != 1 || !strings.Contains(got[0].String(), "library packages never import a face: "+m("triad")+" depends on "+m("mcpserver")) {
		t.Errorf("triad → mcpserver gave %v", got)
	}
}
