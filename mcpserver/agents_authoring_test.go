package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	toolHintsWanted["agents_log"] = struct{ readOnly, destructive, idempotent bool }{false, false, false}
	toolHintsWanted["agents_commission"] = struct{ readOnly, destructive, idempotent bool }{false, false, true}
}

func TestAgentsLogAndCommission(t *testing.T) {
	dir := agentsProject(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var out struct {
		Results []struct {
			File     string         `json:"file"`
			Written  bool           `json:"written"`
			Replaced bool           `json:"replaced"`
			Entry    map[string]any `json:"entry"`
		} `json:"results"`
	}
	args := map[string]any{"slug": "tau", "slugs": []string{"kappa"}, "path": "lib", "note": "shipped", "id": "r1",
		"details": []string{"d1"}, "links": []string{"https://h|pr|PR"}, "contributions": []string{"by=tau,type=code,evidence=e,weight=3"}}
	call(t, cs, "agents_log", args, &out)
	if len(out.Results) != 2 || !out.Results[0].Written || !out.Results[1].Written || !strings.HasSuffix(out.Results[1].File, "kappa@lib.agency.triad.json") {
		t.Fatalf("log = %+v", out)
	}
	links, _ := out.Results[0].Entry["links"].([]any)
	if len(links) != 1 || out.Results[0].Entry["details"] == nil {
		t.Fatalf("entry = %v", out.Results[0].Entry)
	}
	args["note"], args["upsert"] = "shipped v2", true
	call(t, cs, "agents_log", args, &out)
	if !out.Results[0].Replaced || out.Results[0].Entry["summary"] != "shipped v2" {
		t.Fatalf("upsert = %+v", out)
	}
	if msg := callError(t, cs, "agents_log", map[string]any{"slug": "tau", "note": "n", "contributions": []string{"by=x"}}); !strings.Contains(msg, "contributions") {
		t.Fatalf("bad contribution: %s", msg)
	}

	var com struct {
		AgentPath string `json:"agentPath"`
		Files     []struct {
			File, State string
		} `json:"files"`
	}
	call(t, cs, "agents_commission", map[string]any{"slug": "carrie", "title": "Carrie"}, &com)
	if len(com.Files) != 3 || com.Files[0].State != "created" {
		t.Fatalf("commission = %+v", com)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "AGENTS.md")); err != nil || !strings.Contains(string(b), "`.clia/agents/carrie/`") {
		t.Fatalf("roster: %v %s", err, b)
	}
	call(t, cs, "agents_commission", map[string]any{"slug": "carrie", "title": "Carrie"}, &com)
	if com.Files[0].State != "exists" {
		t.Fatalf("second commission = %+v", com)
	}
}
