package sessions

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func TestListAndFind(t *testing.T) {
	repo, _ := importFixture(t, "claude-2.1.332-tui", &Importer{})
	ctx := context.Background()
	list, err := List(ctx, repo, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("listed %d sessions, want 2: %+v", len(list), list)
	}
	// The /branch copy started later and has the harness's title.
	if list[0].Session != "25522612-3e3d-4b2b-a707-99e5d998c914" || !strings.HasSuffix(list[0].Title, "(Branch)") || list[0].Origin == nil {
		t.Errorf("newest session %+v", list[0])
	}
	if list[1].FirstPrompt == "" || list[1].Tokens == 0 || list[1].Model != "claude-opus-5-5" {
		t.Errorf("older session %+v", list[1])
	}
	if l, _ := List(ctx, repo, ListOptions{Harness: Codex}); len(l) != 0 {
		t.Errorf("codex sessions %v", l)
	}
	if l, _ := List(ctx, repo, ListOptions{Cwd: "/elsewhere"}); len(l) != 0 {
		t.Errorf("sessions under /elsewhere %v", l)
	}
	hits, err := Find(ctx, repo, FindOptions{Text: "TX-T9"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.Contains(hits[0].Text, "TX-T9") || hits[0].Key == "" {
		t.Fatalf("hits %+v", hits)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hit %d scores %d after %d", i, hits[i].Score, hits[i-1].Score)
		}
	}
	if _, err := Find(ctx, repo, FindOptions{Text: "  "}); err == nil {
		t.Error("an empty query was taken")
	}
	got, err := Lookup(ctx, repo, "3ad41bac")
	if err != nil || got.Tract != "claude-3ad41bac-d1ec-4d8e-83da-b1f62987b96d" {
		t.Errorf("lookup by prefix: %+v, %v", got, err)
	}
	if _, err := Lookup(ctx, repo, "ffff"); !errors.Is(err, tract.ErrNotFound) {
		t.Errorf("lookup of nothing: %v", err)
	}
}

func TestDiscoverClaude(t *testing.T) {
	dir := unpack(t, "claude")
	home := dir + "/claude-2.1.332"
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	// The fixture's project folder is "-repo": the project "/repo".
	got, err := Discover([]Harness{Claude}, env, "/repo", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !strings.HasSuffix(got[0].Path, "11111111-2222-4333-8444-555555555555.jsonl") {
		t.Errorf("found %v", got)
	}
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return dir + "/claude-2.1.332-tui/.claude"
		}
		return ""
	}
	all, err := Discover(nil, env, "/elsewhere", true)
	if err != nil || len(all) != 2 {
		t.Errorf("--all under CLAUDE_CONFIG_DIR found %v, %v", all, err)
	}
	none, err := Discover(nil, env, "/elsewhere", false)
	if err != nil || len(none) != 0 {
		t.Errorf("a project without sessions found %v, %v", none, err)
	}
}
