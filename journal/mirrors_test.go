package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

func TestMirrorsAreDeterministicAndComplete(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{
		".git": "<dir>",
		".clia/agents/s/s@ws.agent.triad.json": `{"schemaVersion":"0.4.0","title":"Tau","status":"active","updated":"2026-01-01","slug":"tau",
			"role":"Engineer","purpose":"Build things.","responsibilities":["ship"],"guardrails":["Never push to main."],
			"checklists":[{"title":"release","items":["tag"]}],"sections":["s1"],"links":[{"title":"docs","url":"https://x/docs"}],
			"contributionMix":{"primary":[{"type":"code","weight":3}]},"notes":{"author":"a","date":"d","blocks":[{"kind":"p","text":["hello"]}]},"custom":{"k":1}}`,
		".clia/agents/s/s@ws.agenda.triad.json": `{"title":"Plan","horizons":[{"key":"now","label":"Now"}],"milestones":[{"id":"m1","title":"First"}],"backlog":[{"title":"later"}]}`,
		".clia/agents/s/s@ws.agency.triad.json": `{"title":"Log","entries":[{"timestamp":"2026-01-01T00:00:00Z","kind":"journal","title":"old","summary":"o"},
			{"title":"undated"},{"timestamp":"2026-02-01T00:00:00Z","kind":"log","title":"new","summary":"n","tags":["a","b"],
			"contributions":[{"by":"s","types":[{"type":"code","weight":1,"evidence":"e"}]}]}]}`,
		".clia/agents/t/t.agent.json": `{"title":"Other"}`,
	})
	opts := Options{Agents: agents.Options{Path: root}}
	ms, err := Mirrors(opts, []string{"s"}, false)
	if err != nil || len(ms) != 3 {
		t.Fatalf("mirrors %v %v", ms, err)
	}
	agent, _ := os.ReadFile(filepath.Join(root, ".clia/agents/s/.generated/s.agent.triad.md"))
	for _, want := range []string{"# Tau — Agent Profile", "_Status: active_", "## Identity", "- Role: Engineer", "- Contribution mix (primary): code=3",
		"## Purpose\n\nBuild things.", "## Guardrails\n\n- Never push to main.", "- **release**\n  - tag", "[docs](https://x/docs)",
		"## Notes\n\n- a d: hello", "## Other fields\n\n- custom: {\"k\":1}"} {
		if !strings.Contains(string(agent), want) {
			t.Errorf("agent mirror lacks %q:\n%s", want, agent)
		}
	}
	agency, _ := os.ReadFile(filepath.Join(root, ".clia/agents/s/.generated/s.agency.triad.md"))
	iNew, iOld, iUndated := strings.Index(string(agency), "— new"), strings.Index(string(agency), "— old"), strings.Index(string(agency), "### undated")
	if iNew < 0 || iOld < iNew || iUndated < iOld {
		t.Errorf("agency log not newest first:\n%s", agency)
	}
	if !strings.Contains(string(agency), "  - s: code=1 — e") {
		t.Errorf("contributions missing:\n%s", agency)
	}
	agenda, _ := os.ReadFile(filepath.Join(root, ".clia/agents/s/.generated/s.agenda.triad.md"))
	for _, want := range []string{"## Horizons\n\n- **Now** — key: now", "## Milestones\n\n- **First** — id: m1", "## Backlog\n\n- **later**"} {
		if !strings.Contains(string(agenda), want) {
			t.Errorf("agenda mirror lacks %q:\n%s", want, agenda)
		}
	}
	again, err := Mirrors(opts, nil, false)
	if err != nil || len(again) != 4 {
		t.Fatalf("all slugs: %v %v", again, err)
	}
	for _, m := range again {
		if strings.Contains(m.File, "/s/") && m.Changed {
			t.Errorf("%s changed on a second run", m.File)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".clia/agents/s/.generated")); err != nil {
		t.Fatal(err)
	}
	sel, _ := triad.SelectDir(filepath.Join(root, ".clia/agents/s"))
	if len(sel.Files) != 3 {
		t.Errorf("mirrors disturbed the triad selection: %v", sel.Files)
	}
}

func TestMirrorsDryRunWritesNothing(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s.agent.triad.json": `{"title":"x"}`})
	ms, err := Mirrors(Options{Agents: agents.Options{Path: root}}, nil, true)
	if err != nil || len(ms) != 1 || !ms[0].Changed {
		t.Fatalf("%v %v", ms, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".clia/agents/s/.generated")); !os.IsNotExist(err) {
		t.Error("dry run created .generated")
	}
}

// The corpus's own agents render without error and deterministically.
func TestMirrorsOfCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("mirrors every corpus folder; the -short passes (linux/386, Windows) leave it to the native run")
	}
	root := corpusOrSkip(t)
	for _, folder := range folders(t, root) {
		ws := copyFolder(t, filepath.Join(root, folder))
		os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
		opts := Options{Agents: agents.Options{Path: ws, AgentsRoots: []string{".clia/agents", ".wrkstrm/clia/agents", "private/.wrkstrm/agents"}}}
		if _, err := Mirrors(opts, nil, false); err != nil {
			t.Errorf("%s: %v", folder, err)
		}
		ms, err := Mirrors(opts, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Changed {
				t.Errorf("%s: second render differs", m.File)
			}
		}
	}
}
