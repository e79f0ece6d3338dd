package sessions

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// importFixture imports every session file of one fixture folder.
func importFixture(t *testing.T, fixture string, im *Importer) (*tract.Repo, Report) {
	t.Helper()
	dir := unpack(t, "claude")
	repo, _ := newRepo(t)
	im.Repo = repo
	var srcs []Source
	for _, p := range transcripts(t, filepath.Join(dir, fixture)) {
		srcs = append(srcs, Source{Harness: Claude, Path: p})
	}
	rep, err := im.Import(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	return repo, rep
}

func compileText(t *testing.T, repo *tract.Repo, name, at string) string {
	t.Helper()
	res, err := repo.Compile(context.Background(), name, tract.CompileOptions{At: at})
	if err != nil {
		t.Fatal(err)
	}
	return tract.Text(res.Messages)
}

// TestClaudeSessionShape checks the 2.1.332 scenario in tract: the rewind
// is a branch and main the newest line, the compaction a summary, the
// subagent a child spawned at its Agent call and never merged, the fork a
// child by reference, lineage's own hook text not compiled.
func TestClaudeSessionShape(t *testing.T) {
	repo, rep := importFixture(t, "claude-2.1.332", &Importer{})
	ctx := context.Background()
	main := TractName(Claude, "11111111-2222-4333-8444-555555555555")
	for _, s := range rep.Sessions {
		// The subagent finds its Agent call among what the import just
		// mapped: no stored commit is read again for it.
		if s.Spawn != nil && s.Spawn.Kind == LinkSubagent && s.IndexReads != 0 {
			t.Errorf("subagent %s read %d stored commits to find its call, want 0", s.Session, s.IndexReads)
		}
	}
	text := compileText(t, repo, main, "")
	for _, want := range []string{"TX-T11 rewound", "tx-summary: the user had me read main.go", "TX-T7 what did we do"} {
		if !strings.Contains(text, want) {
			t.Errorf("main compiles without %q", want)
		}
	}
	for _, not := range []string{"TX-T8", "TX-T9", "TX-T2 list the api folder", "AGENTS.md in this session:", "tx-sub answer: handler() is empty.\n"} {
		if strings.Contains(text, not) {
			t.Errorf("main compiles %q", not)
		}
	}
	if n := strings.Count(text, "You are powered by the model named"); n != 1 {
		t.Errorf("the model attachment compiles %d times, want once (the newest)", n)
	}
	bs, err := repo.Branches(ctx, main)
	if err != nil {
		t.Fatal(err)
	}
	var rewind string
	for _, b := range bs {
		if strings.HasPrefix(b.Name, "rewind-") {
			rewind = b.Name
		}
	}
	if rewind == "" {
		t.Fatalf("no rewind branch among %v", bs)
	}
	if side := compileText(t, repo, main, rewind); !strings.Contains(side, "TX-T9 continued") || strings.Contains(side, "TX-T11") {
		t.Errorf("branch %s does not hold the abandoned T8/T9 line", rewind)
	}
	sub, err := repo.Tract(ctx, TractName(Claude, "agent-a8fe5a0fe191bb630"))
	if err != nil {
		t.Fatal(err)
	}
	parent, err := repo.Tract(ctx, main)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Spawn == nil || sub.Spawn.Parent != parent.ID || sub.Spawn.Mode != tract.SpawnEmpty {
		t.Fatalf("subagent spawn %+v", sub.Spawn)
	}
	at, err := repo.Show(ctx, main, string(sub.Spawn.Commit))
	if err != nil {
		t.Fatal(err)
	}
	if calls := at.Content.ToolCalls; len(calls) != 1 || calls[0].ID != "toolu_tx011" {
		t.Errorf("subagent spawned at %+v, want the Agent call toolu_tx011", at.Content)
	}
	if st := compileText(t, repo, sub.Name, ""); !strings.Contains(st, "tx-sub answer") || strings.Contains(st, "TX-T1 ") {
		t.Errorf("subagent compiles %q", st)
	}
	fork, err := repo.Tract(ctx, TractName(Claude, "94feb9dd-f705-47b6-a9be-b00514fb9483"))
	if err != nil {
		t.Fatal(err)
	}
	if fork.Spawn == nil || fork.Spawn.Parent != parent.ID || fork.Spawn.Mode != tract.SpawnReference {
		t.Fatalf("fork spawn %+v", fork.Spawn)
	}
	if ft := compileText(t, repo, fork.Name, ""); !strings.Contains(ft, "tx-summary") || !strings.Contains(ft, "TX-T10") {
		t.Errorf("fork compiles without the shared summary or its own T10")
	}
	meta, err := repo.TractMeta(ctx, main)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range meta {
		got[m.Key] = m.Value
	}
	if got[MetaModel] != "claude-opus-5-5" || got[MetaVersion] != "2.1.332" || got[MetaCwd] != "<repo>" || got[MetaGitBranch] != "master" || got[MetaHarness] != "claude" {
		t.Errorf("tract meta %v", got)
	}
}
