package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

func moveTree(t *testing.T) string {
	root := tempRoot(t)
	write(t, root, map[string]string{
		".git":        "<dir>",
		"libs/a/.git": "gitdir: ../../.git/modules/a\n",
		".gitmodules": "[submodule \"a\"]\n\tpath = libs/a\n",
		".clia/agents/root/root@ws.agent.triad.json":   `{"schemaVersion": "0.4.0", "guardrails": ["G-root"]}`,
		".clia/agents/pm/pm@ws.agent.triad.json":       `{"schemaVersion": "0.4.0", "slug": "pm", "guardrails": ["G-pm"], "inherits": ["../root/root@ws.agent.triad.json"]}`,
		".clia/agents/pm/pm@ws.agency.triad.json":      `{"slug": "pm", "entries": [{"id": "e1", "timestamp": "2026-01-01T00:00:00Z", "contributions": [{"by": "pm", "types": []}]}]}`,
		".clia/agents/pm/journal/2026-01-01.json":      `{"date": "2026-01-01"}`,
		".clia/agents/pm/.generated/pm.agent.triad.md": "# pm\n",
		".clia/agents/dev/dev@ws.agent.triad.json":     `{"schemaVersion": "0.4.0", "slug": "dev", "inherits": [".clia/agents/pm/pm@ws.agent.triad.json", "policies/p.json"], "extensions": {"inherits": ["../pm/pm@ws.agent.triad.json"]}}`,
		"policies/p.json":                              `{"guardrails": ["G-policy"], "inherits": ["../.clia/agents/pm/pm@ws.agent.triad.json"]}`,
		"AGENTS.md":                                    "| Agent | Summary | Path |\n| ----- | ------- | -------- |\n| PM | Plans | `.clia/agents/pm/` |\n",
	})
	return root
}

func guardrails(t *testing.T, path, slug string) string {
	t.Helper()
	p, err := agents.BuildProfile(agents.Options{Path: path}, slug, triad.Agent)
	if err != nil {
		t.Fatal(err)
	}
	return string(triad.Canonical(p.Merged.Get("guardrails")))
}

// Renaming an agent moves its whole context (log, days, mirrors), renames
// its "<slug>@" documents and mirror, sets its slug field, and rewrites
// every reference to it — a triad document's inherits in each form, a
// plain JSON policy's, the roster's path cell — so every profile that
// inherited it is unchanged; a dry run writes nothing.
func TestRenameAgentKeepsHistoryAndReferences(t *testing.T) {
	root := moveTree(t)
	before := guardrails(t, root, "dev")
	opts := Options{Agents: agents.Options{Path: root}}
	snap := snapshot(t, root)
	plan, err := MoveAgent(context.Background(), opts, Move{Slug: "pm", To: "product"})
	if err != nil || len(plan.Files) != 4 || len(plan.Refs) != 3 {
		t.Fatalf("dry run: %+v %v", plan, err)
	}
	if d := diffSnapshots(snap, snapshot(t, root)); d != "" {
		t.Fatalf("dry run wrote %s", d)
	}
	if _, err := MoveAgent(context.Background(), opts, Move{Slug: "pm", To: "product", Write: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".clia/agents/pm")); err == nil {
		t.Error("the old context is still there")
	}
	for _, f := range []string{"product@ws.agent.triad.json", "product@ws.agency.triad.json", "journal/2026-01-01.json", ".generated/product.agent.triad.md"} {
		if _, err := os.Stat(filepath.Join(root, ".clia/agents/product", f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(root, p)); return string(b) }
	if got := read(".clia/agents/product/product@ws.agent.triad.json"); got != `{"schemaVersion": "0.4.0", "slug": "product", "guardrails": ["G-pm"], "inherits": ["../root/root@ws.agent.triad.json"]}` {
		t.Errorf("agent:\n%s", got)
	}
	if got := read(".clia/agents/dev/dev@ws.agent.triad.json"); got != `{"schemaVersion": "0.4.0", "slug": "dev", "inherits": [".clia/agents/product/product@ws.agent.triad.json", "policies/p.json"], "extensions": {"inherits": ["../product/product@ws.agent.triad.json"]}}` {
		t.Errorf("dev:\n%s", got)
	}
	if got := read("policies/p.json"); !strings.Contains(got, `"../.clia/agents/product/product@ws.agent.triad.json"`) {
		t.Errorf("policy:\n%s", got)
	}
	if got := read("AGENTS.md"); !strings.Contains(got, "`.clia/agents/product/`") || strings.Contains(got, "/pm/") {
		t.Errorf("roster:\n%s", got)
	}
	if after := guardrails(t, root, "dev"); after != before {
		t.Errorf("dev's guardrails %s, before %s", after, before)
	}
	if _, err := os.Stat(filepath.Join(root, MigrateJournalName)); err == nil {
		t.Error("journal left")
	}
}

// Moving an agent into a submodule keeps the slug, and relative references
// are written again from the new place.
func TestMoveAgentIntoASubmodule(t *testing.T) {
	root := moveTree(t)
	opts := Options{Agents: agents.Options{Path: root}}
	if _, err := MoveAgent(context.Background(), opts, Move{Slug: "pm", ToPath: "libs/a", Write: true}); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(root, p)); return string(b) }
	if got := read("libs/a/.clia/agents/pm/pm@ws.agent.triad.json"); !strings.Contains(got, `"../../../../../.clia/agents/root/root@ws.agent.triad.json"`) {
		t.Errorf("moved agent:\n%s", got)
	}
	if got := read(".clia/agents/dev/dev@ws.agent.triad.json"); !strings.Contains(got, `"libs/a/.clia/agents/pm/pm@ws.agent.triad.json"`) || !strings.Contains(got, `"../../../libs/a/.clia/agents/pm/pm@ws.agent.triad.json"`) {
		t.Errorf("dev:\n%s", got)
	}
	if g := guardrails(t, filepath.Join(root, "libs/a"), "pm"); !strings.Contains(g, "G-root") {
		t.Errorf("moved pm lost its root: %s", g)
	}
	if _, err := MoveAgent(context.Background(), opts, Move{Slug: "dev", To: "root", Write: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("onto an existing context: %v", err)
	}
}
