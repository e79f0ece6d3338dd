package mcpserver

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// The MCP tools load imports and rules through the instructions service,
// inside the allowed roots: an import, a rule without paths and a scoped
// rule delivered on a matching path; an import leading outside is not read.
func TestInstructionsImportsAndRulesOverMCP(t *testing.T) {
	dir := project(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.md"), "TOP SECRET\n")
	writeFile(t, filepath.Join(dir, "AGENTS.md"), "root rules @docs/style.md @leak.md\n")
	writeFile(t, filepath.Join(dir, "docs", "style.md"), "style rules\n")
	writeFile(t, filepath.Join(dir, ".agents", "rules", "always.md"), "always rule\n")
	writeFile(t, filepath.Join(dir, ".agents", "rules", "go.md"), "---\npaths: [\"**/*.go\"]\n---\ngo rule\n")
	platformtest.Symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "leak.md"))
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var in InitialOutput
	call(t, cs, "instructions_initial", nil, &in)
	var got []string
	for _, f := range in.Files {
		got = append(got, strings.TrimPrefix(f.Path, dir))
	}
	if want := []string{"/AGENTS.md", "/docs/style.md", "/.agents/rules/always.md"}; !slices.Equal(got, want) {
		t.Fatalf("initial files %q, want %q", got, want)
	}
	if strings.Contains(in.Text, "SECRET") || !strings.Contains(in.Text, "style rules") || !strings.Contains(in.Text, "always rule") {
		t.Fatalf("initial text:\n%s", in.Text)
	}
	var res ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"main.go"}}, &res)
	if got := pathsOf(res); !slices.Equal(got, []string{filepath.Join(dir, ".agents", "rules", "go.md")}) {
		t.Fatalf("resolve main.go = %q", got)
	}
}
