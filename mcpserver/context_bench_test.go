package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

func contextBenchMessage(i int) tract.CommitRequest {
	role := tract.RoleUser
	if i%2 == 1 {
		role = tract.RoleAssistant
	}
	return tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role,
		Text: fmt.Sprintf("message %d: a line of conversation about the service and its tests", i)}}
}

// BenchmarkContextCompileAfterAppend10k: an in-process MCP server answers
// context_compile for a 10k-message tract after one more commit, its views
// warm from the call before (target ≤ 1 ms). The request is the chain of
// three AGENTS.md, an agent's profile and the history under a 4,000-token
// budget.
func BenchmarkContextCompileAfterAppend10k(b *testing.B) {
	ctx := context.Background()
	dir := project(b)
	writeFile(b, filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"tau","role":"librarian","guardrails":["no force push"]}`+"\n")
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	repo := tract.New(st, tract.Options{})
	if _, _, err := repo.Init(ctx); err != nil {
		b.Fatal(err)
	}
	reqs := []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are a careful engineer."}}}
	for i := 0; i < 9_999; i++ {
		reqs = append(reqs, contextBenchMessage(i))
	}
	if _, err := repo.Import(ctx, "main", reqs); err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Cwd: dir, StateDir: b.TempDir(),
		OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil }})
	if err != nil {
		b.Fatal(err)
	}
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, sst, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	args := &mcp.CallToolParams{Name: "context_compile", Arguments: map[string]any{
		"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 4000, "format": "openai-request"}}
	call := func() {
		res, err := cs.CallTool(ctx, args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	call()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := repo.Commit(ctx, "main", contextBenchMessage(10_000+i)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		call()
	}
}
