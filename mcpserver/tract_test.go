package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

func init() {
	for name, h := range map[string]struct{ readOnly, destructive, idempotent bool }{
		"tract_commit":     {false, false, false},
		"tract_compile":    {true, false, true},
		"tract_log":        {true, false, true},
		"tract_branch":     {false, true, false},
		"tract_switch":     {false, false, true},
		"tract_merge":      {false, false, false},
		"tract_annotate":   {false, false, false},
		"tract_edit":       {false, false, false},
		"tract_spawn":      {false, false, false},
		"tract_merge_from": {false, false, false},
	} {
		toolHintsWanted[name] = h
	}
}

// newStore creates a store with tract main and returns its path and a repo
// on it (the library the CLI uses).
func newStore(t testing.TB) (string, *tract.Repo) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".lineage", "lineage.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	repo := tract.New(st, tract.Options{})
	// A server on repo may be writing a checkpoint: done before the close.
	t.Cleanup(repo.Wait)
	if _, _, err := repo.Init(ctx); err != nil {
		t.Fatal(err)
	}
	return path, repo
}

func logTexts(t *testing.T, repo *tract.Repo, name string) []string {
	t.Helper()
	entries, err := repo.Log(context.Background(), name, tract.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Summary)
	}
	return out
}

func TestTractCommitsSharedWithTheLibrary(t *testing.T) {
	path, repo := newStore(t)
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var c tract.Commit
	call(t, cs, "tract_commit", map[string]any{"type": "message", "text": "from mcp", "message": "m1"}, &c)
	if c.Hash == "" || c.Operation != tract.OpAppend || len(c.Parents) != 0 || c.Message != "m1" {
		t.Fatalf("commit = %+v", c)
	}
	if got := logTexts(t, repo, "main"); !slices.Equal(got, []string{"from mcp"}) {
		t.Fatalf("library log = %v", got)
	}

	if _, err := repo.Commit(context.Background(), "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "from the cli"}}); err != nil {
		t.Fatal(err)
	}
	var page LogOutput
	call(t, cs, "tract_log", nil, &page)
	if len(page.Entries) != 2 || page.Entries[0].Summary != "from the cli" || page.Entries[1].Hash != c.Hash || page.NextCursor != "" {
		t.Fatalf("mcp log = %+v", page)
	}
}

func TestTwoServersCommitConcurrentlyWithoutLoss(t *testing.T) {
	path, repo := newStore(t)
	const perServer = 20
	var wg sync.WaitGroup
	for s := range 2 {
		cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perServer {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tract_commit",
					Arguments: map[string]any{"type": "message", "text": fmt.Sprintf("s%d-%d", s, i)}})
				if err != nil || res.IsError {
					t.Errorf("server %d commit %d: %v %s", s, i, err, contentText(res))
					return
				}
			}
		}()
	}
	wg.Wait()
	entries, err := repo.Log(context.Background(), "main", tract.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2*perServer {
		t.Fatalf("%d commits, want %d", len(entries), 2*perServer)
	}
	// One chain: each commit's only parent is the next older one.
	seen := map[string]bool{}
	for i, e := range entries {
		seen[e.Summary] = true
		if i+1 < len(entries) && (len(e.Parents) != 1 || e.Parents[0] != entries[i+1].Hash) {
			t.Fatalf("commit %d is not on one chain: %+v", i, e)
		}
	}
	for s := range 2 {
		for i := range perServer {
			if !seen[fmt.Sprintf("s%d-%d", s, i)] {
				t.Fatalf("lost s%d-%d", s, i)
			}
		}
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

func TestTractCompileFormatsAndLongResults(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Text: "be brief"}})
	repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: strings.Repeat("long question ", 300)}})
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path, maxTokens: 400}, nil)

	var out CompileOutput
	call(t, cs, "tract_compile", map[string]any{"budget": 100}, &out)
	if len(out.Messages) != 1 || out.Messages[0].Content != "be brief" || len(out.Dropped) != 1 || out.Budget == nil || *out.Budget != 100 {
		t.Fatalf("budget compile = %+v", out)
	}
	out = CompileOutput{}
	call(t, cs, "tract_compile", map[string]any{"format": "openai", "budget": 100}, &out)
	if len(out.OpenAI) != 1 || out.OpenAI[0].Role != "system" || len(out.Messages) != 0 {
		t.Fatalf("openai compile = %+v", out)
	}
	out = CompileOutput{}
	call(t, cs, "tract_compile", nil, &out)
	if out.Resource != "lineage://tract/main/compiled" || len(out.Messages) != 0 || out.Tokens == 0 {
		t.Fatalf("long compile = %+v", out)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.Resource})
	if err != nil {
		t.Fatal(err)
	}
	var full tract.Result
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &full); err != nil || len(full.Messages) != 2 {
		t.Fatalf("resource: %v, %d messages", err, len(full.Messages))
	}
	out = CompileOutput{}
	call(t, cs, "tract_compile", map[string]any{"format": "text", "budget": 50}, &out)
	if out.Resource != "" || !strings.Contains(out.Text, "be brief") {
		t.Fatalf("text compile = %+v", out)
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lineage://tract/main/compiled?budget=50&format=openai"})
	if err != nil || !strings.HasPrefix(res.Contents[0].Text, `[{"role":"system"`) {
		t.Fatalf("openai resource: %v %.80s", err, res.Contents[0].Text)
	}
	if msg := callError(t, cs, "tract_compile", map[string]any{"format": "xml"}); !strings.Contains(msg, "format") {
		t.Fatalf("bad format: %s", msg)
	}
}

func TestTractRefToolsMirrorTheCLI(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	base, _ := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "base"}})
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var br BranchOutput
	call(t, cs, "tract_branch", map[string]any{"name": "idea"}, &br)
	if br.Created == nil || br.Created.Name != "idea" || br.Created.Commit != base.Hash {
		t.Fatalf("create = %+v", br)
	}
	var sw SwitchOutput
	call(t, cs, "tract_switch", map[string]any{"name": "idea"}, &sw)
	if sw.Branch != "idea" || sw.Head != base.Hash {
		t.Fatalf("switch = %+v", sw)
	}
	var c tract.Commit
	call(t, cs, "tract_commit", map[string]any{"type": "message", "role": "assistant", "text": "an idea"}, &c)
	call(t, cs, "tract_switch", map[string]any{"name": "main"}, &sw)
	var m tract.MergeResult
	call(t, cs, "tract_merge", map[string]any{"branch": "idea"}, &m)
	if m.Kind != tract.MergeFastForward || m.Head != c.Hash {
		t.Fatalf("merge = %+v", m)
	}
	call(t, cs, "tract_branch", nil, &br)
	if len(br.Branches) != 2 || br.Branches[0].Name != "idea" || !br.Branches[1].Current {
		t.Fatalf("branches = %+v", br)
	}
	call(t, cs, "tract_branch", map[string]any{"delete": "idea"}, &br)
	if br.Deleted != "idea" {
		t.Fatalf("delete = %+v", br)
	}

	var a tract.Annotation
	call(t, cs, "tract_annotate", map[string]any{"ref": base.Hash.Short(), "priority": "skip", "reason": "noise"}, &a)
	if a.Priority != tract.Skip || a.Commit != base.Hash || a.Reason != "noise" {
		t.Fatalf("annotate = %+v", a)
	}
	var e tract.Commit
	call(t, cs, "tract_edit", map[string]any{"ref": "HEAD", "text": "a better idea"}, &e)
	if e.Operation != tract.OpEdit || e.EditTarget != c.Hash {
		t.Fatalf("edit = %+v", e)
	}
	var out CompileOutput
	call(t, cs, "tract_compile", nil, &out)
	if len(out.Messages) != 1 || out.Messages[0].Content != "a better idea" {
		t.Fatalf("compile after skip and edit = %+v", out.Messages)
	}

	var child tract.Tract
	call(t, cs, "tract_spawn", map[string]any{"child": "helper", "purpose": "look things up"}, &child)
	if child.Name != "helper" || child.Spawn == nil || child.Spawn.Mode != tract.SpawnReference {
		t.Fatalf("spawn = %+v", child)
	}
	call(t, cs, "tract_commit", map[string]any{"tract": "helper", "type": "message", "role": "assistant", "text": "found it"}, &c)
	var mf tract.MergeFromResult
	call(t, cs, "tract_merge_from", map[string]any{"child": "helper"}, &mf)
	if mf.Kind != "merge" || mf.Parent != "main" || mf.Child != "helper" {
		t.Fatalf("merge-from = %+v", mf)
	}
	out = CompileOutput{}
	call(t, cs, "tract_compile", nil, &out)
	var texts []string
	for _, m := range out.Messages {
		texts = append(texts, m.Content)
	}
	if !slices.Equal(texts, []string{"a better idea", "found it"}) {
		t.Fatalf("parent compile after merge-from = %v", texts)
	}

	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"tract_annotate", map[string]any{"ref": "HEAD", "priority": "urgent"}, "priority"},
		{"tract_switch", map[string]any{"name": "nope"}, "not found"},
		{"tract_merge", map[string]any{"branch": "main", "strategy": "mine"}, "strategy"},
		{"tract_commit", map[string]any{"type": "gossip", "text": "x"}, "type"},
		{"tract_commit", map[string]any{"type": "message", "text": "x", "priority": "important"}, "priority"},
		{"tract_spawn", map[string]any{"child": "x", "purpose": "p", "mode": "clone"}, "mode"},
		{"tract_branch", map[string]any{"name": "a", "delete": "b"}, "not both"},
		{"tract_log", map[string]any{"tract": "ghost"}, "not found"},
	} {
		if msg := callError(t, cs, bad.tool, bad.args); !strings.Contains(msg, bad.want) {
			t.Errorf("%s %v: %q, want it to mention %q", bad.tool, bad.args, msg, bad.want)
		}
	}
}

func TestCommitResourceAndPrompt(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Text: "rules"}})
	c, _ := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "answer"}})
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lineage://tract/main/commit/" + string(c.Hash)})
	if err != nil {
		t.Fatal(err)
	}
	var shown tract.Shown
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &shown); err != nil || shown.Content == nil || shown.Content.Text != "answer" {
		t.Fatalf("commit resource: %v %+v", err, shown)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lineage://tract/main/commit/ffffffff"}); err == nil {
		t.Fatal("unknown commit read")
	}
	// Every JSON-RPC error has a real code and the useful message (the
	// SDK sends a plain error with code 0).
	for uri, want := range map[string]int64{
		"lineage://tract/main/commit/ffffffff":         mcp.CodeResourceNotFound,
		"lineage://tract/main/compiled?budget=x":       jsonrpc.CodeInvalidParams,
		"lineage://tract/main/compiled?format=yaml":    jsonrpc.CodeInvalidParams,
		"lineage://tract/no-such-tract/compiled":       mcp.CodeResourceNotFound,
		"lineage://tract/main/compiled?at=not-a-ref!!": mcp.CodeResourceNotFound,
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != want || je.Message == "" {
			t.Errorf("read %s: %v, want code %d", uri, err, want)
		}
	}

	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "compile-context", Arguments: map[string]string{"tract": "main", "budget": "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 2 || p.Messages[0].Role != "user" || p.Messages[0].Content.(*mcp.TextContent).Text != "[system]\nrules" ||
		p.Messages[1].Role != "assistant" || p.Messages[1].Content.(*mcp.TextContent).Text != "answer" {
		t.Fatalf("prompt = %+v", p.Messages)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "compile-context", Arguments: map[string]string{"budget": "lots"}}); err == nil {
		t.Fatal("bad budget accepted")
	}
}

// toolsTestStore is a store for tests that list every tool.
func toolsTestStore(t *testing.T) string {
	path, _ := newStore(t)
	return path
}

func TestHTTPStatelessReplicasShareTheStore(t *testing.T) {
	path, repo := newStore(t)
	open := func(ctx context.Context) (*tract.Repo, error) {
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { st.Close() })
		return tract.New(st, tract.Options{}), nil
	}
	// Two replicas behind a load balancer: stateless, one store.
	var clients []*mcp.ClientSession
	for range 2 {
		dir := t.TempDir()
		ts := httpServer(t, Options{Cwd: dir, Stateless: true, StateDir: dir, OpenTract: open}, HTTPOptions{})
		cs, err := connectHTTP(t, ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, cs)
	}
	var wg sync.WaitGroup
	for i, cs := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tract_commit",
					Arguments: map[string]any{"type": "message", "text": fmt.Sprintf("r%d-%d", i, j)}})
				if err != nil || res.IsError {
					t.Errorf("replica %d commit %d: %v %s", i, j, err, contentText(res))
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := logTexts(t, repo, "main"); len(got) != 20 {
		t.Fatalf("%d commits, want 20: %v", len(got), got)
	}
}
