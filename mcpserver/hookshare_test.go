package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
)

// connectAs connects an in-memory client named client to srv.
func connectAs(t *testing.T, srv *Server, client string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A hook session is shared only with an MCP client of the same harness,
// and only while it is live: a client lineage does not recognise (opencode)
// keeps its own session and is told about sub/AGENTS.md although a Claude
// Code hook session in the same directory was; the Claude session's state
// does not hear of the other client's resolves.
func TestHookStateSharedOnlyWithTheSameHarness(t *testing.T) {
	dir := project(t)
	hooksDir := t.TempDir()
	sess, _ := instructions.Start(instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir})
	sess.Resolve(filepath.Join(dir, "sub", "x.go"))
	claudeState := filepath.Join(hooksDir, "claude-s1.json")
	if err := instructions.WriteState(context.Background(), claudeState, sess.State()); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(claudeState)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), HookSessions: hooksDir})
	if err != nil {
		t.Fatal(err)
	}
	sub, deep := filepath.Join(dir, "sub", "AGENTS.md"), filepath.Join(dir, "sub", "deep", "AGENTS.md")
	for _, client := range []string{"opencode", "codex-mcp-client", "gemini-cli-mcp-client"} {
		var out ResolveOutput
		call(t, connectAs(t, srv, client), "instructions_resolve", map[string]any{"paths": []string{"sub/deep/x.go"}}, &out)
		if got := pathsOf(out); !slices.Equal(got, []string{sub, deep}) {
			t.Errorf("%s: resolve = %v, want sub and sub/deep (its own session; the Claude hook's is not its)", client, got)
		}
	}
	if after, _ := os.ReadFile(claudeState); string(after) != string(before) {
		t.Errorf("another client's resolves changed the Claude hook session's state")
	}
	var out ResolveOutput
	call(t, connectAs(t, srv, "claude-code"), "instructions_resolve", map[string]any{"paths": []string{"sub/deep/x.go"}}, &out)
	if got := pathsOf(out); !slices.Equal(got, []string{deep}) {
		t.Errorf("claude-code: resolve = %v, want only sub/deep (shares its hook's live session)", got)
	}

	// A hook session not written for longer than HookStateLive is over:
	// nobody shares it.
	old := time.Now().Add(-HookStateLive - time.Hour)
	if err := os.Chtimes(claudeState, old, old); err != nil {
		t.Fatal(err)
	}
	call(t, connectAs(t, srv, "claude-code"), "instructions_resolve", map[string]any{"paths": []string{"sub/deep/x.go"}}, &out)
	if got := pathsOf(out); !slices.Equal(got, []string{sub, deep}) {
		t.Errorf("claude-code with a stale hook state: resolve = %v, want its own session", got)
	}
}
