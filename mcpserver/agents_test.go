package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

func init() {
	toolHintsWanted["agents_context"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["agents_profile"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["agents_journal"] = struct{ readOnly, destructive, idempotent bool }{false, false, false}
}

// agentsProject is a workspace with a root context and a submodule-local
// context for slug tau.
func agentsProject(t *testing.T) string {
	t.Helper()
	dir := project(t)
	writeFile(t, filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"tau","title":"Tau","guardrails":["no force push"]}`+"\n")
	writeFile(t, filepath.Join(dir, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	writeFile(t, filepath.Join(dir, "lib", ".clia", "agents", "tau", "tau@lib.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"tau","role":"librarian","guardrails":["run tests"]}`+"\n")
	return dir
}

func TestAgentsContextAndProfile(t *testing.T) {
	dir := agentsProject(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)

	var ch agents.Chain
	call(t, cs, "agents_context", map[string]any{"slug": "tau", "path": "lib"}, &ch)
	if len(ch.Contexts) != 2 || ch.Contexts[0].Prefix != "tau@ws" || ch.Contexts[1].Prefix != "tau@lib" || ch.Path != filepath.Join(dir, "lib") {
		t.Fatalf("chain = %+v", ch)
	}

	var prof map[string]any
	call(t, cs, "agents_profile", map[string]any{"slug": "tau", "path": "lib"}, &prof)
	g, _ := prof["guardrails"].([]any)
	if prof["title"] != "Tau" || prof["role"] != "librarian" || len(g) != 2 {
		t.Fatalf("profile = %v", prof)
	}
	call(t, cs, "agents_profile", map[string]any{"slug": "tau", "path": "lib", "explain": true}, &prof)
	if _, ok := prof["provenance"].(map[string]any); !ok {
		t.Fatalf("explained profile = %v", prof)
	}
	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"agents_profile", map[string]any{"slug": "nobody"}, "nobody"},
		{"agents_profile", map[string]any{"slug": "tau", "kind": "diary"}, "kind"},
		{"agents_context", map[string]any{"slug": "../x"}, "slug"},
	} {
		if msg := callError(t, cs, bad.tool, bad.args); !strings.Contains(msg, bad.want) {
			t.Errorf("%s %v: %q, want it to mention %q", bad.tool, bad.args, msg, bad.want)
		}
	}
}

func TestAgentsJournalAppends(t *testing.T) {
	dir := agentsProject(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var out struct {
		File    string         `json:"file"`
		Written bool           `json:"written"`
		Entry   map[string]any `json:"entry"`
	}
	args := map[string]any{"slug": "tau", "path": "lib", "note": "fixed the build", "tags": []string{"ci"}, "id": "e1"}
	call(t, cs, "agents_journal", args, &out)
	want := filepath.Join(dir, "lib", ".clia", "agents", "tau", "tau@lib.agency.triad.json")
	if !out.Written || out.File != want || out.Entry["id"] != "e1" || out.Entry["summary"] != "fixed the build" || out.Entry["source"] != "lib" {
		t.Fatalf("journal = %+v", out)
	}
	data, err := os.ReadFile(want)
	if err != nil || !strings.Contains(string(data), `"fixed the build"`) {
		t.Fatalf("agency file: %v\n%s", err, data)
	}
	call(t, cs, "agents_journal", args, &out)
	if out.Written {
		t.Fatal("the same id was written twice")
	}
	if msg := callError(t, cs, "agents_journal", map[string]any{"slug": "tau", "note": " "}); !strings.Contains(msg, "note") {
		t.Fatalf("empty note: %s", msg)
	}
	if msg := callError(t, cs, "agents_journal", map[string]any{"slug": "tau", "note": "n", "writeScope": "galaxy"}); !strings.Contains(msg, "writeScope") {
		t.Fatalf("bad scope: %s", msg)
	}
}
