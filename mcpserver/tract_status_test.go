package mcpserver

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	toolHintsWanted["tract_diff"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["tract_status"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["tract_config"] = struct{ readOnly, destructive, idempotent bool }{false, true, true}
}

func commitText(t *testing.T, repo *tract.Repo, name, role, text string) tract.Hash {
	t.Helper()
	c, err := repo.Commit(context.Background(), name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role, Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Hash
}

// TestTractDiff: the tool returns what the library's diff does — an edit,
// an addition, a reprioritized message — and refuses a missing from and an
// unknown ref with the library's message.
func TestTractDiff(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	a := commitText(t, repo, "main", "user", "first question")
	commitText(t, repo, "main", "assistant", "first answer")
	if _, err := repo.Edit(ctx, "main", string(a), "first question, edited", ""); err != nil {
		t.Fatal(err)
	}
	added := commitText(t, repo, "main", "user", "second question")
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var got DiffOutput
	call(t, cs, "tract_diff", map[string]any{"from": "HEAD~2"}, &got)
	want, err := repo.Diff(ctx, "main", "HEAD~2", tract.HeadRef, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.DiffResult, want) || got.NextCursor != "" {
		t.Fatalf("tract_diff = %+v\nwant %+v", got, want)
	}
	kinds := []string{}
	for _, c := range got.Changes {
		kinds = append(kinds, c.Kind+" "+c.Commit.Short())
	}
	if w := []string{"edited " + a.Short(), "added " + added.Short()}; !reflect.DeepEqual(kinds, w) {
		t.Fatalf("changes %v, want %v", kinds, w)
	}
	if got.From.Ref != "HEAD~2" || got.To.Ref != "HEAD" || got.To.Messages != 3 || got.From.Messages != 2 {
		t.Fatalf("sides %+v %+v", got.From, got.To)
	}

	if msg := callError(t, cs, "tract_diff", nil); !strings.Contains(msg, `"from"`) {
		t.Fatalf("no from: %q", msg)
	}
	if msg := callError(t, cs, "tract_diff", map[string]any{"from": ""}); !strings.Contains(msg, "from: give the ref") {
		t.Fatalf("empty from: %q", msg)
	}
	if msg := callError(t, cs, "tract_diff", map[string]any{"from": "nosuch"}); !strings.Contains(msg, "nosuch") {
		t.Fatalf("unknown ref: %q", msg)
	}
}

// TestTractDiffPages: a diff longer than the result limit comes in pages
// whose changes, put together, are the whole diff; a cursor is refused once
// a ref moved, and a cursor of another list is refused.
func TestTractDiffPages(t *testing.T) {
	path, repo := newStore(t)
	first := commitText(t, repo, "main", "user", "start")
	for i := 0; i < 40; i++ {
		commitText(t, repo, "main", "user", fmt.Sprintf("message %d: %s", i, strings.Repeat("words and more words ", 10)))
	}
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path, maxTokens: 800}, nil)
	want, err := repo.Diff(context.Background(), "main", string(first), tract.HeadRef, "")
	if err != nil {
		t.Fatal(err)
	}
	var all []tract.Change
	cursor, pages := "", 0
	for {
		args := map[string]any{"from": string(first)}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page DiffOutput
		call(t, cs, "tract_diff", args, &page)
		pages++
		if len(page.Changes) == 0 {
			t.Fatalf("page %d is empty", pages)
		}
		all = append(all, page.Changes...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
		if pages > 40 {
			t.Fatal("paging does not end")
		}
	}
	if pages < 2 || !reflect.DeepEqual(all, want.Changes) {
		t.Fatalf("%d pages, %d changes; want several pages and the %d changes of the diff", pages, len(all), len(want.Changes))
	}

	var p1 DiffOutput
	call(t, cs, "tract_diff", map[string]any{"from": string(first)}, &p1)
	commitText(t, repo, "main", "user", "HEAD moves")
	if msg := callError(t, cs, "tract_diff", map[string]any{"from": string(first), "cursor": p1.NextCursor}); !strings.Contains(msg, "cursor belongs to another list") {
		t.Fatalf("cursor after HEAD moved: %q", msg)
	}
	var log LogOutput
	call(t, cs, "tract_log", map[string]any{"limit": 1}, &log)
	if msg := callError(t, cs, "tract_diff", map[string]any{"from": string(first), "cursor": log.NextCursor}); !strings.Contains(msg, "cursor belongs to another list") {
		t.Fatalf("a log cursor: %q", msg)
	}
	if msg := callError(t, cs, "tract_diff", map[string]any{"from": string(first), "cursor": "!!"}); !strings.Contains(msg, "invalid cursor") {
		t.Fatalf("a broken cursor: %q", msg)
	}
}

// TestTractStatusAndConfig: the budget stored with tract_config is the one
// tract_status measures against; status names the unmerged child and the
// branch behind; config refuses bad values and a value without a key.
func TestTractStatusAndConfig(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		commitText(t, repo, "main", "user", fmt.Sprint("message ", i))
	}
	if _, err := repo.CreateBranch(ctx, "main", "side", "HEAD~2"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "research"}); err != nil {
		t.Fatal(err)
	}
	commitText(t, repo, "kid", "assistant", "a finding")
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var cfg tract.Config
	call(t, cs, "tract_config", nil, &cfg)
	if cfg.Budget != 0 {
		t.Fatalf("fresh config %+v", cfg)
	}
	var st tract.Status
	call(t, cs, "tract_status", nil, &st)
	if st.Budget != nil || st.Over || st.Branch != "main" || st.Tokens == 0 {
		t.Fatalf("status without a budget: %+v", st)
	}
	call(t, cs, "tract_config", map[string]any{"key": "budget", "value": "10"}, &cfg)
	if cfg.Budget != 10 {
		t.Fatalf("config after storing 10: %+v", cfg)
	}
	call(t, cs, "tract_status", nil, &st)
	want, err := repo.Status(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("tract_status = %+v\nwant %+v", st, want)
	}
	if st.Budget == nil || *st.Budget != 10 || !st.Over ||
		len(st.Children) != 1 || st.Children[0].Name != "kid" ||
		len(st.Branches) != 1 || st.Branches[0].Name != "side" || st.Branches[0].Behind != 2 || st.Branches[0].Ahead != 0 {
		t.Fatalf("status: %+v", st)
	}
	call(t, cs, "tract_config", map[string]any{"key": "budget", "value": "none"}, &cfg)
	if got, err := repo.Config(ctx, "main"); err != nil || got.Budget != 0 || cfg.Budget != 0 {
		t.Fatalf("after none: tool %+v, store %+v %v", cfg, got, err)
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"key": "budget", "value": "-3"}, "want a positive number of tokens"},
		{map[string]any{"key": "budget", "value": "lots"}, "want a positive number of tokens"},
		{map[string]any{"value": "10"}, "key: name the setting"},
		{map[string]any{"key": "budget"}, "value: give the value of budget"},
		{map[string]any{"key": "colour", "value": "red"}, "colour"},
		{map[string]any{"tract": "nosuch"}, "nosuch"},
	} {
		if msg := callError(t, cs, "tract_config", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("tract_config %v: %q, want it to mention %q", c.args, msg, c.want)
		}
	}
	if msg := callError(t, cs, "tract_status", map[string]any{"tract": "nosuch"}); !strings.Contains(msg, "nosuch") {
		t.Errorf("status of an unknown tract: %q", msg)
	}
}
