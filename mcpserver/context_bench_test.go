package mcpserver

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

func contextBenchMessage(i int) tract.CommitRequest {
	role := tract.RoleUser
	if i%2 == 1 {
		role = tract.RoleAssistant
	}
	return tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role,
		Text: fmt.Sprintf("message %d: a line of conversation about the service and its tests", i)}}
}

var contextBenchArgs = map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 4000, "format": "openai-request"}

// BenchmarkContextCompileAfterAppend10k: an in-process MCP server answers
// context_compile for a 10k-message tract after one more commit, its views
// warm from the call before (target ≤ 1 ms). The request is the chain of
// three AGENTS.md, an agent's profile and the history under a 4,000-token
// budget; the round trip is the SDK's, client to server and back (the
// result decoded by the client). cpu-µs/op is the process's CPU time per
// call, the commit left out.
func BenchmarkContextCompileAfterAppend10k(b *testing.B) {
	ctx := context.Background()
	repo, cs := contextWorld(b, Options{})
	args := &mcp.CallToolParams{Name: "context_compile", Arguments: contextBenchArgs}
	call := func() {
		res, err := cs.CallTool(ctx, args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	afterEachAppend(b, repo, call)
}

// BenchmarkContextCompileHandler is the benchmark above without the SDK:
// the tool's handler alone (the compile, the outline, the request text and
// its size check), called directly.
func BenchmarkContextCompileHandler(b *testing.B) {
	ctx := context.Background()
	repo, srv := contextServer(b, Options{})
	in := ContextInput{Target: "sub/deep", Slug: "tau", Tract: "main", Budget: 4000, Format: "openai-request"}
	call := func() {
		res, out, err := srv.toolContext(ctx, &mcp.CallToolRequest{}, in)
		if err != nil || !out.Inline || res == nil {
			b.Fatal(err, out.Inline)
		}
	}
	afterEachAppend(b, repo, call)
}

// BenchmarkContextCompileFloor is what the SDK's round trip costs without
// any compile: "tiny" is a tool answering a one-line text and a one-field
// structured result; "same-result" answers the very result
// context_compile gives in the benchmark above (its text content and
// structured content, computed once): the floor under that benchmark.
func BenchmarkContextCompileFloor(b *testing.B) {
	ctx := context.Background()
	_, cs := contextWorld(b, Options{})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: contextBenchArgs})
	if err != nil || res.IsError {
		b.Fatal(err, res)
	}
	var out ContextOutput
	if err := remarshal(res.StructuredContent, &out); err != nil {
		b.Fatal(err)
	}
	text := contentText(res)
	type tiny struct {
		Tokens int `json:"tokens"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "tiny"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, tiny, error) {
		return textResult("ok"), tiny{Tokens: 1}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "same-result"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, ContextOutput, error) {
		return textResult(text), out, nil
	})
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, sst, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	fcs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer fcs.Close()
	for _, name := range []string{"tiny", "same-result"} {
		b.Run(name, func(b *testing.B) {
			args := &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}
			b.ReportAllocs()
			c0, _ := processCPU()
			for b.Loop() {
				if res, err := fcs.CallTool(ctx, args); err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			if c1, ok := processCPU(); ok {
				b.ReportMetric((c1-c0)*1e6/float64(b.N), "cpu-µs/op")
			}
		})
	}
}

// afterEachAppend times call after one more commit each time (the commit
// outside the timer), call having run once before, and reports its CPU.
func afterEachAppend(b *testing.B, repo *tract.Repo, call func()) {
	ctx := context.Background()
	call()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := 0.0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := repo.Commit(ctx, "main", contextBenchMessage(10_000+i)); err != nil {
			b.Fatal(err)
		}
		c0, _ := processCPU()
		b.StartTimer()
		call()
		b.StopTimer()
		c1, ok := processCPU()
		b.StartTimer()
		if ok {
			cpu += c1 - c0
		}
	}
	b.ReportMetric(cpu*1e6/float64(b.N), "cpu-µs/op")
}
