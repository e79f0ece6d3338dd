package mcpserver

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// TestTractTagFindAndTools: tags, find with metadata, and a tools commit
// compiled into both request formats, through the MCP tools.
func TestTractTagFindAndTools(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	base, _ := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "deploy the base"}})
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var c tract.Commit
	call(t, cs, "tract_commit", map[string]any{"type": "message", "text": "Deploy again", "meta": map[string]any{"ticket": "OPS-1"}}, &c)
	if string(c.Meta) != `{"ticket":"OPS-1"}` {
		t.Fatalf("commit meta %s", c.Meta)
	}
	var tg TagOutput
	call(t, cs, "tract_tag", map[string]any{"name": "v1", "ref": base.Hash.Short()}, &tg)
	if tg.Created == nil || tg.Created.Commit != base.Hash {
		t.Fatalf("tag = %+v", tg)
	}
	call(t, cs, "tract_tag", nil, &tg)
	if len(tg.Tags) != 1 || tg.Tags[0].Name != "v1" {
		t.Fatalf("tags = %+v", tg)
	}
	var fo FindOutput
	call(t, cs, "tract_find", map[string]any{"text": "deploy"}, &fo)
	if len(fo.Found) != 2 || fo.Found[0].Commit.Hash != base.Hash || fo.Found[1].Commit.Hash != c.Hash {
		t.Fatalf("find = %+v", fo)
	}
	call(t, cs, "tract_find", map[string]any{"meta": map[string]any{"ticket": "OPS-1"}}, &fo)
	if len(fo.Found) != 1 || fo.Found[0].Commit.Hash != c.Hash {
		t.Fatalf("find meta = %+v", fo)
	}
	call(t, cs, "tract_find", map[string]any{"tag": "v1", "text": "deploy"}, &fo)
	if len(fo.Found) != 1 || fo.Found[0].Commit.Hash != base.Hash {
		t.Fatalf("find tag = %+v", fo)
	}
	if msg := callError(t, cs, "tract_find", map[string]any{"tag": "nosuch"}); !strings.Contains(msg, `tag "nosuch"`) {
		t.Fatalf("unknown tag: %s", msg)
	}
	call(t, cs, "tract_tag", map[string]any{"delete": "v1"}, &tg)
	if tg.Deleted == nil || tg.Deleted.Name != "v1" {
		t.Fatalf("delete = %+v", tg)
	}

	tools := []any{map[string]any{"name": "lookup", "description": "look up", "parameters": map[string]any{"type": "object"}}}
	call(t, cs, "tract_commit", map[string]any{"type": "tools", "tools": tools}, &c)
	if msg := callError(t, cs, "tract_commit", map[string]any{"type": "tools", "tools": []any{map[string]any{"name": "bad name"}}}); !strings.Contains(msg, "tools[0].name") {
		t.Fatalf("bad tool: %s", msg)
	}
	var out CompileOutput
	call(t, cs, "tract_compile", map[string]any{"format": "openai-request"}, &out)
	if out.OpenAIRequest == nil || len(out.OpenAIRequest.Tools) != 1 || out.OpenAIRequest.Tools[0].Function.Name != "lookup" {
		t.Fatalf("openai-request = %+v", out.OpenAIRequest)
	}
	call(t, cs, "tract_compile", map[string]any{"format": "anthropic"}, &out)
	if out.Anthropic == nil || len(out.Anthropic.Tools) != 1 || string(out.Anthropic.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Fatalf("anthropic = %+v", out.Anthropic)
	}
}

func init() {
	toolHintsWanted["tract_tag"] = struct{ readOnly, destructive, idempotent bool }{false, true, false}
	toolHintsWanted["tract_find"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
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

func TestTractLogPages(t *testing.T) {
	path, repo := newStore(t)
	var want []tract.Hash
	for i := range 30 {
		c, err := repo.Commit(context.Background(), "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprintf("message %d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		want = append([]tract.Hash{c.Hash}, want...)
	}
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path, maxTokens: 1500}, nil)
	var got []tract.Hash
	cursor, pages := "", 0
	for {
		var page LogOutput
		call(t, cs, "tract_log", map[string]any{"limit": 7, "cursor": cursor}, &page)
		if len(page.Entries) == 0 || len(page.Entries) > 7 {
			t.Fatalf("page of %d entries", len(page.Entries))
		}
		if n := resultTokens(&defaultTokens{}, page); n > 1500 {
			t.Fatalf("page of %d tokens", n)
		}
		for _, e := range page.Entries {
			got = append(got, e.Hash)
		}
		pages++
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) || pages < 5 {
		t.Fatalf("%d pages gave %d commits; want all 30 newest first", pages, len(got))
	}
	if msg := callError(t, cs, "tract_log", map[string]any{"cursor": "garbage"}); !strings.Contains(msg, "cursor") {
		t.Fatalf("bad cursor: %s", msg)
	}
	if msg := callError(t, cs, "tract_log", map[string]any{"tract": "other", "cursor": encodeCursor("log:main", string(want[3]))}); !strings.Contains(msg, "another list") {
		t.Fatalf("cursor of another tract: %s", msg)
	}
}
