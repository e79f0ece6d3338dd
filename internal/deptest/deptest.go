package deptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Module is lineage's module path.
const Module = "github.com/agentlineage/lineage"

// Package is one package of the module with what it imports (its own
// non-test files) and everything it depends on, transitively.
type Package struct {
	ImportPath string   `json:"ImportPath"`
	Imports    []string `json:"Imports"`
	Deps       []string `json:"Deps"`
}

// Rule forbids the packages For selects to depend on a package Forbid
// selects: directly when Direct, else through any chain of imports.
type Rule struct {
	Name   string
	For    func(pkg string) bool
	Forbid func(dep string) bool
	Direct bool
}

// Violation is one dependency that breaks a rule.
type Violation struct {
	Rule    string
	Package string
	Dep     string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s depends on %s", v.Rule, v.Package, v.Dep)
}

// Check returns the violations of rules in pkgs, sorted.
func Check(pkgs []Package, rules []Rule) []Violation {
	var out []Violation
	for _, p := range pkgs {
		for _, r := range rules {
			if !r.For(p.ImportPath) {
				continue
			}
			deps := p.Deps
			if r.Direct {
				deps = p.Imports
			}
			for _, d := range deps {
				if r.Forbid(d) {
					out = append(out, Violation{Rule: r.Name, Package: p.ImportPath, Dep: d})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Violation) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// List reads the packages of the module in dir with `go list`.
func List(dir string) ([]Package, error) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.Bytes())
	}
	var pkgs []Package
	dec := jsontext.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := json.UnmarshalDecode(dec, &p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// pkg selects the module's packages with these paths (relative to the
// module: "tract", "internal/cli").
func pkg(paths ...string) func(string) bool {
	return func(p string) bool {
		rel, ok := strings.CutPrefix(p, Module+"/")
		return ok && slices.Contains(paths, rel)
	}
}

// under selects import paths equal to or below one of prefixes.
func under(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

// not selects what f does not, among the module's packages.
func not(f func(string) bool) func(string) bool {
	return func(p string) bool { return strings.HasPrefix(p, Module) && !f(p) }
}

// The layers of docs/architecture.md.
var (
	faces = func(p string) bool {
		return pkg("cmd/lineage", "mcpserver", "webui")(p) || under(Module+"/internal/cli")(p)
	}
	domain  = pkg("instructions", "skills", "hooks", "agents", "journal", "triad", "triad/triadschema", "tract", "internal/fsx", "internal/confine", "internal/canon", "internal/jsonerr", "internal/tokens", "internal/frontmatter", "internal/httpguard", "sessions")
	stores  = under(Module+"/tract/sqlite", Module+"/tract/postgres", Module+"/tract/stores")
	drivers = under("modernc.org/sqlite", "github.com/jackc/pgx/v5", "database/sql")
)

// cliGroup selects the CLI's command-group packages (internal/cli/tractcmd,
// internal/cli/agentscmd, …): the packages right under internal/cli named
// …cmd. Their shared base (internal/cli/clienv) is not one.
func cliGroup(p string) bool {
	rel, ok := strings.CutPrefix(p, Module+"/internal/cli/")
	return ok && !strings.Contains(rel, "/") && strings.HasSuffix(rel, "cmd")
}

// CLIGroupsRule is the name of the rule that keeps the CLI's command
// groups apart.
const CLIGroupsRule = "a CLI command group imports no other group, and the CLI's base imports none"

// ConfigRule and ConfigFacesRule name the rules that keep internal/config
// the CLI's own: only the CLI reads the host's configuration, and it
// depends on no face.
const (
	ConfigRule      = "only the CLI imports internal/config"
	ConfigFacesRule = "internal/config imports no face"
)

// TractTextRule and TractTextBaseRule name the rules that keep the text
// drawings of tract listings (log lines, graph, dot, spawn tree) the CLI's:
// the domain returns structs, only the CLI's packages draw them, and the
// renderers stand on tract alone.
const (
	TractTextRule     = "tract listings are drawn as text only by the CLI: only internal/cli/... imports internal/cli/tracttext"
	TractTextBaseRule = "internal/cli/tracttext imports no CLI package (no group, not clienv)"
)

// Rules are lineage's dependency rules.
var Rules = []Rule{
	{Name: "the domain never reaches a store or a database driver", For: domain,
		Forbid: func(d string) bool { return stores(d) || drivers(d) }},
	{Name: "library packages never import a face", For: not(faces),
		Forbid: under(Module+"/internal/cli", Module+"/mcpserver", Module+"/webui")},
	{Name: "the MCP server never imports the CLI", For: pkg("mcpserver"),
		Forbid: under(Module + "/internal/cli")},
	{Name: "the MCP server and the web face get their store injected", For: pkg("mcpserver", "webui"),
		Forbid: func(d string) bool { return stores(d) || drivers(d) }, Direct: true},
	{Name: "modernc.org/sqlite only in tract/sqlite", For: not(pkg("tract/sqlite")),
		Forbid: under("modernc.org/sqlite"), Direct: true},
	{Name: "pgx only in tract/postgres", For: not(pkg("tract/postgres")),
		Forbid: under("github.com/jackc/pgx/v5"), Direct: true},
	{Name: "the tokenizer only in internal/tokens", For: not(pkg("internal/tokens")),
		Forbid: under("github.com/tiktoken-go/tokenizer"), Direct: true},
	{Name: "tract's row forms only in the stores", For: not(pkg("tract/sqlite", "tract/postgres")),
		Forbid: under(Module + "/tract/internal/rowform"), Direct: true},
	{Name: "go-git only in agents (the .gitmodules decoder)", For: not(pkg("agents")),
		Forbid: under("github.com/go-git/go-git/v5"), Direct: true},
	{Name: "the YAML decoder only in internal/frontmatter", For: not(pkg("internal/frontmatter")),
		Forbid: under("go.yaml.in/yaml/v3"), Direct: true},
	{Name: "compose composes the services and reaches no store or driver", For: pkg("compose"),
		Forbid: func(d string) bool { return stores(d) || drivers(d) }},
	{Name: "only the faces (and handoff, which composes a session's next start with it) import compose", For: not(func(p string) bool { return faces(p) || pkg("compose", "handoff")(p) }),
		Forbid: under(Module + "/compose")},
	{Name: "sessions is of the tract wing: it never imports instructions, skills or agents", For: under(Module + "/sessions"),
		Forbid: under(Module+"/instructions", Module+"/skills", Module+"/agents", Module+"/journal", Module+"/triad", Module+"/hooks", Module+"/compose")},
	{Name: "platformtest only in tests", For: not(pkg("internal/platformtest")),
		Forbid: under(Module + "/internal/platformtest"), Direct: true},
	{Name: "the instructions.FS suite only in tests", For: not(pkg("instructions/fstest")),
		Forbid: under(Module + "/instructions/fstest"), Direct: true},
	{Name: "the domain renders no provider's format: tract and its stores never reach tract/wire",
		For: func(p string) bool {
			return pkg("tract")(p) || under(Module+"/tract/sqlite", Module+"/tract/postgres", Module+"/tract/internal")(p)
		},
		Forbid: under(Module + "/tract/wire")},
	{Name: CLIGroupsRule, For: func(p string) bool { return cliGroup(p) || pkg("internal/cli/clienv")(p) },
		Forbid: cliGroup},
	{Name: TractTextRule, For: not(under(Module + "/internal/cli")),
		Forbid: under(Module + "/internal/cli/tracttext"), Direct: true},
	{Name: TractTextBaseRule, For: pkg("internal/cli/tracttext"),
		Forbid: func(d string) bool { return under(Module+"/internal/cli")(d) && d != Module+"/internal/cli/tracttext" }},
	{Name: ConfigRule, For: not(func(p string) bool { return under(Module+"/internal/cli")(p) || pkg("internal/config")(p) }),
		Forbid: under(Module + "/internal/config"), Direct: true},
	{Name: ConfigFacesRule, For: pkg("internal/config"),
		Forbid: func(d string) bool { return faces(d) || under(Module+"/hooks")(d) }},
}
