package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
)

// TestContextCompileStaysInItsLimit: an agent whose profile has 20,000
// guardrails (each a field with its source) makes an outline far past the
// result limit: the result still fits (bytes of text and structured
// content, a token being at least a byte), the request and every source
// are in the resource, and a warning says so. A model name past 256 bytes
// (it would be repeated in the resource URI) is a tool error naming the
// limit.
func TestContextCompileStaysInItsLimit(t *testing.T) {
	ctx := context.Background()
	dir := project(t)
	var g []string
	for i := range 20_000 {
		g = append(g, fmt.Sprintf("%q", fmt.Sprintf("guardrail number %d", i)))
	}
	writeFile(t, filepath.Join(dir, ".clia", "agents", "big", "big@ws.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"big","role":"r","guardrails":[`+strings.Join(g, ",")+`]}`+"\n")
	_, repo := newStore(t)
	srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil }})
	if err != nil {
		t.Fatal(err)
	}
	cs := inProcess(t, srv)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: map[string]any{"slug": "big"}})
	if err != nil || res.IsError {
		t.Fatal(err, contentText(res))
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if n := len(contentText(res)) + len(structured); n > DefaultMaxResultTokens {
		t.Errorf("result of %d bytes, the limit is %d tokens", n, DefaultMaxResultTokens)
	}
	var out ContextOutput
	if err := remarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if out.Inline || len(out.Warnings) == 0 || !strings.Contains(out.Warnings[len(out.Warnings)-1], "read them from the resource") {
		t.Errorf("inline %v, warnings %q", out.Inline, out.Warnings)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.Resource})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "guardrail number 19999") {
		t.Fatalf("resource: %v", err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: map[string]any{"model": strings.Repeat("m", 1<<20)}})
	if err != nil || !res.IsError || !strings.Contains(contentText(res), "model: 1048576 bytes, the limit is 256") {
		t.Errorf("a 1 MB model name: %v %.200s", err, contentText(res))
	}
}

// TestContextCompileFarPastTheLimitIsNotRendered: a history whose own
// count is far past the result limit gets the resource in the answer
// without its request being rendered or tokenized for the result (the
// first call on a long tract costs the compile only); the resource has
// the request.
func TestContextCompileFarPastTheLimitIsNotRendered(t *testing.T) {
	ctx := context.Background()
	dir := project(t)
	_, repo := newStore(t)
	for i := range 300 {
		if _, err := repo.Commit(ctx, "main", contextBenchMessage(i)); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	counter := tokens.Func{Name: "o200k_base", Fn: func(s string) int { calls++; return len(s) / 4 }}
	srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), MaxResultTokens: 1000, Tokens: counter,
		OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil }})
	if err != nil {
		t.Fatal(err)
	}
	cs := inProcess(t, srv)
	text, out := callContext(t, cs, map[string]any{"tract": "main", "format": "openai-request"})
	if out.Inline || out.Tokens <= 2*1000 || !strings.Contains(text, "too long for one result: read it from the resource "+out.Resource) {
		t.Fatalf("inline %v, %d tokens, text %.200s", out.Inline, out.Tokens, text)
	}
	if calls != 0 {
		t.Errorf("the result's tokenizer ran %d times for a request it could never hold", calls)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.Resource})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "message 299: a line of conversation") {
		t.Fatalf("resource: %v", err)
	}
}

// TestContextCompileBudgetedAnswerInline: a budgeted request beside a long
// outline (a profile of many fields, each with its source) stays inline
// when the result's tokens fit, though its bytes would not: the structured
// part is counted in tokens once bytes are not enough.
func TestContextCompileBudgetedAnswerInline(t *testing.T) {
	ctx := context.Background()
	dir := project(t)
	var g []string
	for i := range 60 {
		g = append(g, fmt.Sprintf("%q", fmt.Sprintf("guardrail number %d: keep the service's tests green", i)))
	}
	writeFile(t, filepath.Join(dir, ".clia", "agents", "big", "big@ws.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"big","role":"r","guardrails":[`+strings.Join(g, ",")+`]}`+"\n")
	_, repo := newStore(t)
	for i := range 40 {
		if _, err := repo.Commit(ctx, "main", contextBenchMessage(i)); err != nil {
			t.Fatal(err)
		}
	}
	args := map[string]any{"slug": "big", "tract": "main", "budget": 1500, "format": "openai-request"}
	answer := func(max int) (string, ContextOutput, []byte) {
		srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), MaxResultTokens: max,
			OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil }})
		if err != nil {
			t.Fatal(err)
		}
		cs := inProcess(t, srv)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: args})
		if err != nil || res.IsError {
			t.Fatal(err, contentText(res))
		}
		var out ContextOutput
		if err := remarshal(res.StructuredContent, &out); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return contentText(res), out, b
	}
	text, out, b := answer(1 << 20)
	if !out.Inline {
		t.Fatal("not inline under a large limit")
	}
	c, err := tokens.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	n, bt := c.Count(text), c.Count(string(b))
	if bt >= len(b)*3/4 {
		t.Fatalf("structured part: %d tokens for %d bytes, the test needs fewer", bt, len(b))
	}
	// A limit the answer fits in tokens and not in bytes.
	limit := bt + n + (len(b)-bt)/2
	text2, out2, _ := answer(limit)
	if !out2.Inline || text2 != text {
		t.Errorf("limit %d (answer %d tokens, %d bytes of structure): inline %v", limit, bt+n, len(b), out2.Inline)
	}
	if _, out3, _ := answer(bt + n - 50); out3.Inline {
		t.Errorf("inline under a limit of %d tokens for an answer of %d", bt+n-50, bt+n)
	}
}
