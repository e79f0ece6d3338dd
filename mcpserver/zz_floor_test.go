package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func BenchmarkZZRawFloor(b *testing.B) {
	ctx := context.Background()
	_, cs := contextWorld(b, Options{})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: contextBenchArgs})
	if err != nil || res.IsError {
		b.Fatal(err, res)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	text := contentText(res)
	for _, name := range []string{"tiny", "same"} {
		b.Run(name, func(b *testing.B) {
			s, err := New(Options{Cwd: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			s.srv.AddTool(&mcp.Tool{Name: "x", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if name == "tiny" {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: json.RawMessage(`{"a":1}`)}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(sc)}, nil
			})
			rc := rawConnect(b, s)
			b.ReportAllocs()
			for b.Loop() {
				rc.call(b, "tools/call", `{"name":"x","arguments":{}}`)
			}
		})
	}
}
