package agents

import (
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseGitmodules(t *testing.T) {
	in := `# top comment
[submodule "libs/x"]
	path = libs/x ; trailing comment
	url = https://example.com/x.git
[submodule "quoted"]
	path = "libs/with space"
[core]
	path = not/a/submodule
[submodule "dup"]
	path = libs/x
[submodule "blank"]
	url = nothing
`
	got, err := ParseGitmodules([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"libs/with space", "libs/x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}
	if _, err := ParseGitmodules([]byte("[submodule \"x\"\npath=1")); err == nil {
		t.Error("malformed .gitmodules parsed without error")
	}
}

func FuzzParseGitmodules(f *testing.F) {
	f.Add([]byte("[submodule \"a\"]\n\tpath = a/b\n"))
	f.Add([]byte("[submodule \"q\"]\npath = \"x y\" ; c\n# c\n"))
	f.Add([]byte("[x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := ParseGitmodules(data)
		if err != nil {
			return
		}
		for i, p := range paths {
			if p == "" || (i > 0 && paths[i-1] >= p) {
				t.Fatalf("paths not sorted, unique and non-blank: %q", paths)
			}
		}
	})
}

func TestDefaultDomainsSubmodules(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".gitmodules":      "[submodule \"x\"]\n\tpath = libs/x\n[submodule \"xy\"]\n\tpath = libs/xy\n[submodule \"out\"]\n\tpath = ../escape\n",
		"libs/x/src/keep":  "",
		"libs/xy/src/keep": "",
	})
	p := filepath.Join(root, "libs/x/src")
	domains, excluded, warns := DefaultDomains(p)
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	last := domains[len(domains)-3:]
	want := []Domain{{filepath.Join(root, "libs"), ReasonAncestor}, {filepath.Join(root, "libs", "x"), ReasonSubmodule}, {p, ReasonAncestor}}
	if !reflect.DeepEqual(last, want) {
		t.Errorf("domains tail = %v, want %v", last, want)
	}
	if len(excluded) != 1 || excluded[0].Dir != filepath.Join(root, "libs", "xy") {
		t.Errorf("excluded = %v, want the sibling libs/xy only", excluded)
	}
	if fsRoot := filepath.VolumeName(root) + string(filepath.Separator); domains[0].Dir != fsRoot {
		t.Errorf("chain does not start at %s: %v", fsRoot, domains[0])
	}
}

func TestRepoAndWorkspaceRoots(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{".git": "<dir>", "sub/.git": "gitdir: x", "sub/a/b": "<dir>"})
	p := filepath.Join(root, "sub/a/b")
	if r, ok := RepoRoot(p); !ok || r != filepath.Join(root, "sub") {
		t.Errorf("RepoRoot = %q %v", r, ok)
	}
	if w, ok := WorkspaceRoot(p); !ok || w != root {
		t.Errorf("WorkspaceRoot = %q %v", w, ok)
	}
}

func TestSymlinkedContextDirIsFollowed(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		"shared/tau/t@x.agent.triad.json": `{"schemaVersion":"0.4.0","title":"linked"}`,
		"repo/.git":                       "<dir>",
	})
	os.MkdirAll(filepath.Join(root, "repo/.clia/agents"), 0o755)
	platformtest.Symlink(t, filepath.Join(root, "shared/tau"), filepath.Join(root, "repo/.clia/agents/tau"))
	got, _ := profileJSON(t, Options{Path: filepath.Join(root, "repo")}, "tau", "agent")
	if indexOf(got, `"linked"`) < 0 {
		t.Errorf("profile through a symlinked context dir = %s", got)
	}
	list, err := List(Options{Path: filepath.Join(root, "repo")})
	if err != nil || len(list) != 1 || list[0].Slug != "tau" {
		t.Errorf("List = %v, %v", list, err)
	}
}

func TestAgentsRootsAndValidation(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".clia/agents/a/a@r.agent.triad.json":          `{"schemaVersion":"0.4.0","guardrails":["clia"]}`,
		".wrkstrm/clia/agents/a/a@r.agent.triad.json":  `{"schemaVersion":"0.4.0","guardrails":["wrkstrm"]}`,
		"sub/.wrkstrm/clia/agents/a/a@s.agent.json":    `{"schemaVersion":"0.4.0","guardrails":["sub"]}`,
		".wrkstrm/clia/agents/b/notes.md":              "not a triad",
		".wrkstrm/clia/agents/c/c.agency.triad.jsonl":  "{}",
		".wrkstrm/clia/agents/d/journal/d.agent.json":  "{}",
		".wrkstrm/clia/agents/e/e.agent.json.bak":      "{}",
		".wrkstrm/clia/agents/f/.generated/f.agent.md": "x",
	})
	opts := Options{Path: filepath.Join(root, "sub"), AgentsRoots: []string{".clia/agents", ".wrkstrm/clia/agents"}}
	got, _ := profileJSON(t, opts, "a", "agent")
	if indexOf(got, `"clia",`) < 0 || indexOf(got, `"wrkstrm",`) < 0 || indexOf(got, `"sub"`) < 0 {
		t.Errorf("profile = %s", got)
	}
	list, _ := List(opts)
	if len(list) != 1 {
		t.Errorf("List found %v; only a is an agent", list)
	}
	for _, bad := range [][]string{{"/abs"}, {"../up"}, {"."}, {""}} {
		if _, err := Resolve(Options{Path: root, AgentsRoots: bad}, "a"); err == nil {
			t.Errorf("agents root %q accepted", bad)
		}
	}
	for _, slug := range []string{"", "..", "a/b", "."} {
		if _, err := Resolve(Options{Path: root}, slug); err == nil {
			t.Errorf("slug %q accepted", slug)
		}
	}
}
