package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

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
