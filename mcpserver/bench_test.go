package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkResolveOverStdio is one instructions_resolve round trip to a
// server process over real pipes (the common call of an agent session).
func BenchmarkResolveOverStdio(b *testing.B) {
	cs := connectStdio(b, serverProc{cwd: project(b), stateDir: b.TempDir()}, nil)
	args := &mcp.CallToolParams{Name: "instructions_resolve", Arguments: map[string]any{"paths": []string{"sub/deep/x.go"}}}
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTractCommitOverStdio is one tract_commit round trip, store
// transaction included.
func BenchmarkTractCommitOverStdio(b *testing.B) {
	path, _ := newStore(b)
	cs := connectStdio(b, serverProc{cwd: b.TempDir(), store: path}, nil)
	args := &mcp.CallToolParams{Name: "tract_commit", Arguments: map[string]any{"type": "message", "text": "benchmark message"}}
	for b.Loop() {
		if res, err := cs.CallTool(context.Background(), args); err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}
