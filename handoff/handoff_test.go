package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// session builds a session-shaped tract: an injected instruction, then
// turns of a user message, a tool call and result, and an answer, with a
// harness compaction over the first two turns when compacted is set.
func session(t *testing.T, turns int, compacted bool) (*tract.Repo, sessions.Info) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "s.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	repo := tract.New(st, tract.Options{Now: func() time.Time { now = now.Add(time.Second); return now }})
	name := "claude-s1"
	if _, err := repo.NewTract(ctx, name); err != nil {
		t.Fatal(err)
	}
	commit := func(c tract.Content) tract.Commit {
		t.Helper()
		cm, err := repo.Commit(ctx, name, tract.CommitRequest{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		return cm
	}
	commit(tract.Content{Type: tract.TypeInstruction, Text: "environment: linux, the harness's own context"})
	var firsts []tract.Commit
	for i := range turns {
		firsts = append(firsts, commit(tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("question %d about the parser", i)}))
		id := fmt.Sprintf("call_%d", i)
		commit(tract.Content{Type: tract.TypeToolCall, Role: "assistant", ToolCalls: []tract.ToolCall{{ID: id, Name: "Bash", Arguments: `{"command":"go test"}`}}})
		commit(tract.Content{Type: tract.TypeToolResult, Role: "tool", ToolCallID: id, Text: fmt.Sprintf("result %d: ok", i)})
		last := commit(tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: fmt.Sprintf("answer %d: the loop stops one token early", i)})
		if compacted && i == 1 {
			if _, err := repo.Compress(ctx, name, tract.CompressOptions{Range: string(firsts[0].Hash) + ".." + string(last.Hash), Summary: "harness summary of turns 0 and 1"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return repo, sessions.Info{Tract: name, Harness: sessions.Claude, Session: "s1"}
}

// options hand info off to Claude Code from an empty project folder (an
// absolute path on every system: a drive letter on Windows).
func options(t *testing.T, repo *tract.Repo, info sessions.Info) Options {
	return Options{Repo: repo, Session: info, To: ToClaude, Instructions: instructions.Options{Cwd: t.TempDir()}}
}

func TestComposeHarnessSummaryTailAndSkips(t *testing.T) {
	repo, info := session(t, 4, true)
	res, err := Compose(context.Background(), options(t, repo, info))
	if err != nil {
		t.Fatal(err)
	}
	text := res.Context.Request.Text
	if res.Summary != SummaryHarness || !strings.HasPrefix(text, "user: harness summary of turns 0 and 1") {
		t.Fatalf("summary %q, text:\n%s", res.Summary, text)
	}
	for _, want := range []string{"question 2 about", "answer 3:"} {
		if !strings.Contains(text, want) {
			t.Errorf("tail lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"environment: linux", "question 0", "answer 1"} {
		if strings.Contains(text, gone) {
			t.Errorf("handoff holds %q:\n%s", gone, text)
		}
	}
	tr, err := repo.Tract(context.Background(), res.Tract)
	if err != nil || tr.Spawn == nil || tr.Spawn.Commit != res.At {
		t.Fatalf("handoff tract %+v, %v: want a spawn at %s", tr, err, res.At)
	}
}

func TestComposeCallerSummaryTakesWholeTurnsUnderBudget(t *testing.T) {
	repo, info := session(t, 6, false)
	ctx := context.Background()
	o := options(t, repo, info)
	o.Summary = "we found the parser drops the last token"
	// Without a budget: the summary and the last turn.
	res, err := Compose(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	want := "user: we found the parser drops the last token\n\nuser: question 5 about the parser\n\nassistant:\n  -> call_5 Bash({\"command\":\"go test\"})\n\ntool [call_5]: result 5: ok\n\nassistant: answer 5: the loop stops one token early\n"
	if got := res.Context.Request.Text; got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// Under budgets: never over, the summary always first, whole turns.
	for budget := 30; budget <= 200; budget += 7 {
		o.Budget = budget
		res, err := Compose(ctx, o)
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if res.Context.Tokens > budget {
			t.Fatalf("budget %d: %d tokens", budget, res.Context.Tokens)
		}
		text := res.Context.Request.Text
		if !strings.HasPrefix(text, "user: we found") || strings.Contains(text, "question 0") {
			t.Fatalf("budget %d:\n%s", budget, text)
		}
		if strings.Count(text, "question ") != strings.Count(text, "answer ") {
			t.Fatalf("budget %d: a turn cut in two:\n%s", budget, text)
		}
	}
}

func TestComposeIsDeterministicAndRecordedOnce(t *testing.T) {
	repo, info := session(t, 3, false)
	ctx := context.Background()
	o := options(t, repo, info)
	o.Summary, o.Budget, o.To = "summary", 80, ToOpenAI
	a, err := Compose(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compose(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Created || b.Created || a.Tract != b.Tract {
		t.Fatalf("first %s created %v, second %s created %v", a.Tract, a.Created, b.Tract, b.Created)
	}
	ja, _ := json.Marshal(a.Context.Request)
	jb, _ := json.Marshal(b.Context.Request)
	if string(ja) != string(jb) || !strings.Contains(string(ja), `"content":"summary"`) {
		t.Fatalf("two handoffs of the same inputs differ:\n%s\n%s", ja, jb)
	}
}

func TestComposePinnedOverBudgetLeavesNoTract(t *testing.T) {
	repo, info := session(t, 3, false)
	ctx := context.Background()
	if _, err := repo.CreateTag(ctx, info.Tract, "decision", "HEAD~5"); err != nil {
		t.Fatal(err)
	}
	o := options(t, repo, info)
	o.Summary, o.Budget = strings.Repeat("a long summary ", 20), 40
	_, err := Compose(ctx, o)
	var be *compose.BudgetError
	if !errors.As(err, &be) || len(be.Largest) == 0 {
		t.Fatalf("got %v, want a budget error naming the pinned parts", err)
	}
	if !strings.Contains(err.Error(), "largest: ") {
		t.Fatalf("error %q names no part", err)
	}
	ts, err := repo.Tracts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if strings.HasPrefix(tr.Name, "handoff-") {
			t.Fatalf("a failed handoff left tract %s", tr.Name)
		}
	}
	// The tag is pinned: a budget keeps it beside the summary.
	o.Summary, o.Budget = "short", 60
	res, err := Compose(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Context.Request.Text, "result 1: ok") {
		t.Fatalf("the tagged result is not kept:\n%s", res.Context.Request.Text)
	}
}
