package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func init() {
	toolHintsWanted["agents_agenda"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
}

// agents_agenda mirrors `lineage agents agenda`; the server's clock is the
// real one, so the milestones are dated far in the past (always overdue)
// or far in the future (never in a window).
func TestAgentsAgenda(t *testing.T) {
	dir := agentsProject(t)
	writeFile(t, filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agenda.triad.json"),
		`{"schemaVersion":"0.4.0","status":"active","sections":[{"slug":"next","items":["ship"]}],`+
			`"milestones":[{"id":"far","title":"Far","due":"2999-01-01"},{"id":"old","title":"Old","due":"2000-01-01"}],"backlog":["tidy"]}`+"\n")
	writeFile(t, filepath.Join(dir, "lib", ".clia", "agents", "dot", "dot@lib.agenda.triad.json"),
		`{"schemaVersion":"0.4.0","status":"draft","backlog":[{"title":"guide"}]}`+"\n")
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)

	type block struct {
		Agent      string           `json:"agent"`
		Current    []string         `json:"current"`
		Items      []string         `json:"items"`
		Milestones []map[string]any `json:"milestones"`
		Backlog    []map[string]any `json:"backlog"`
	}
	var plain struct{ Agents []block }
	call(t, cs, "agents_agenda", map[string]any{"path": "lib"}, &plain)
	if len(plain.Agents) != 2 || plain.Agents[0].Agent != "dot" || plain.Agents[1].Agent != "tau" ||
		plain.Agents[1].Milestones[0]["title"] != "Old" || !slices.Equal(plain.Agents[1].Current, []string{"ship"}) {
		t.Fatalf("plain = %+v", plain)
	}
	var cal map[string][]block
	call(t, cs, "agents_agenda", map[string]any{"calendar": "all", "activeOnly": true}, &cal)
	if len(cal) != 3 || len(cal["week"]) != 1 || len(cal["week"][0].Milestones) != 1 ||
		cal["week"][0].Milestones[0]["overdue"] != true || !slices.Equal(cal["day"][0].Items, []string{"ship"}) {
		t.Fatalf("calendar = %+v", cal)
	}
	if msg := callError(t, cs, "agents_agenda", map[string]any{"calendar": "week", "backlogOnly": true}); !strings.Contains(msg, "backlogOnly") {
		t.Fatalf("backlogOnly with calendar: %s", msg)
	}
	if msg := callError(t, cs, "agents_agenda", map[string]any{"calendar": "year"}); !strings.Contains(msg, "calendar") {
		t.Fatalf("bad calendar: %s", msg)
	}

	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "agents_agenda" {
			continue
		}
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if !strings.Contains(string(in), `"enum":["day","week","month","all"]`) || string(out) != `{"type":"object"}` {
			t.Fatalf("schemas: %s %s", in, out)
		}
		return
	}
	t.Fatal("agents_agenda not listed")
}
