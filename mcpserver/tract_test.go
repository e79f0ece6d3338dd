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

// TestTractGuideInInstructions: a server with a tract store tells the agent
// how to checkpoint, rewind and compress with the tools it lists.
func TestTractGuideInInstructions(t *testing.T) {
	path, _ := newStore(t)
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)
	guide := cs.InitializeResult().Instructions
	tools, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"tract_tag", "tract_reset", "tract_checkout", "tract_switch", "tract_cherry_pick", "tract_compress", "tract_merge_from", "tract_export", "warn"} {
		if !strings.Contains(guide, want) {
			t.Fatalf("instructions lack %q:\n%s", want, guide)
		}
		if strings.HasPrefix(want, "tract_") && !slices.Contains(names, want) {
			t.Fatalf("the guide names %s, which the server does not list", want)
		}
	}
}

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
