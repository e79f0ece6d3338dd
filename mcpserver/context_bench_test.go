package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
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

// BenchmarkContextCompileServerAnswer10k is the benchmark above as the
// server answers it: the real SDK server on the transport
// mcp.NewInMemoryTransports builds (the SDK's newline-delimited JSON
// connection over a net.Pipe, here through mcp.IOTransport so that the
// client end is bytes), driven by a raw JSON-RPC client that writes the
// tools/call request's bytes and reads the response's line, decoding
// nothing. The time is the server's answer: reading and decoding the
// request, the tool, encoding and writing the result.
func BenchmarkContextCompileServerAnswer10k(b *testing.B) {
	repo, srv := contextServer(b, Options{})
	rc := rawConnect(b, srv)
	args := string(mustJSON(b, contextBenchArgs))
	call := func() {
		resp := rc.call(b, "tools/call", `{"name":"context_compile","arguments":`+args+`}`)
		if bytes.Contains(resp, []byte(`"isError":true`)) || !bytes.Contains(resp, []byte(`"result":`)) {
			b.Fatalf("%.300s", resp)
		}
	}
	afterEachAppend(b, repo, call)
	reportSourceReads(b, srv)
}

// reportSourceReads reports how many times per call context_compile read
// its system part's files instead of reusing them (compose.Sources): 0
// in the steady state.
func reportSourceReads(b *testing.B, srv *Server) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	n := 0
	for _, src := range srv.sources {
		n += src.Reads()
	}
	b.ReportMetric(float64(n)/float64(b.N), "source-reads/op")
}

// BenchmarkContextCompileServerFloor is the benchmark above without any
// compile: the same server answering, through the lower-level AddTool,
// "tiny" (a one-line text and a one-field structured result) and
// "same-result" (the very result context_compile gives there, made
// once): the SDK's own part of the server's answer, mostly encoding the
// result's JSON.
func BenchmarkContextCompileServerFloor(b *testing.B) {
	ctx := context.Background()
	_, cs := contextWorld(b, Options{})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: contextBenchArgs})
	if err != nil || res.IsError {
		b.Fatal(err, res)
	}
	structured := mustJSON(b, res.StructuredContent)
	text := contentText(res)
	for _, name := range []string{"tiny", "same-result"} {
		b.Run(name, func(b *testing.B) {
			srv, err := New(Options{Cwd: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			answer := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: json.RawMessage(`{"tokens":1}`)}
			if name == "same-result" {
				answer = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(structured)}
			}
			srv.MCP().AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return answer, nil
			})
			rc := rawConnect(b, srv)
			params := `{"name":"` + name + `","arguments":{}}`
			b.ReportAllocs()
			c0, _ := processCPU()
			for b.Loop() {
				rc.call(b, "tools/call", params)
			}
			if c1, ok := processCPU(); ok {
				b.ReportMetric((c1-c0)*1e6/float64(b.N), "cpu-µs/op")
			}
		})
	}
}

// fataler is testing.TB or *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// rawClient speaks JSON-RPC to a server over a pipe, in bytes.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
	id   int
}

// rawConnect serves srv on one end of a net.Pipe with the SDK's
// newline-delimited JSON connection (what mcp.NewInMemoryTransports does)
// and initializes a session from the other end, in bytes.
func rawConnect(tb testing.TB, srv *Server) *rawClient {
	return rawConnectVersion(tb, srv.MCP(), "2025-06-18")
}

// call writes one request and returns the line of its response (lines
// the server sends meanwhile, such as notifications, are skipped).
func (rc *rawClient) call(tb fataler, method, params string) []byte {
	rc.id++
	id := strconv.Itoa(rc.id)
	if _, err := rc.conn.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + "}\n")); err != nil {
		tb.Fatal(err)
	}
	want := []byte(`"id":` + id + `,`)
	for {
		line, err := rc.r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			var more []byte
			more, err = rc.r.ReadSlice('\n')
			line = append(line[:len(line):len(line)], more...)
		}
		if err != nil {
			tb.Fatal(err)
		}
		if bytes.Contains(line[:min(len(line), 64)], want) {
			return line
		}
	}
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
	reportSourceReads(b, srv)
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

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
