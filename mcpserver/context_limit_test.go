package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
