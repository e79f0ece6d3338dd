package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/memory"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// memoryClient connects an in-process server of user in cwd, over the
// sessions store at path, as client (its initialize name).
func memoryClient(t *testing.T, path, user, cwd, client string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	open := func(readOnly bool) SessionsOpener {
		return func(ctx context.Context) (*tract.Repo, func(), error) {
			st, err := sqlite.Open(ctx, path, sqlite.Options{Create: !readOnly, ReadOnly: readOnly})
			if err != nil {
				return nil, nil, err
			}
			return tract.New(st, tract.Options{}), func() { st.Close() }, nil
		}
	}
	srv, err := New(Options{Cwd: cwd, OpenSessions: open(false), OpenSessionsWrite: open(false), MemoryUser: user})
	if err != nil {
		t.Fatal(err)
	}
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := srv.srv.Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMemoryTools: memory_save keeps a memory with the client's harness as
// its provenance; memory_search finds it, ranked, in this user's and this
// project's scopes only; memory_forget hides it. Two projects and two
// users share the store and see nothing of each other's (a project's
// memories are one user's too).
func TestMemoryTools(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.db")
	p1, p2 := project(t), project(t)
	ann1 := memoryClient(t, store, "ann", p1, "claude-code")
	var saved memory.Memory
	call(t, ann1, "memory_save", map[string]any{"text": "The parser tests need LINEAGE_NOW set."}, &saved)
	if saved.Scope != memory.Project || saved.Project != p1 || saved.Harness != "claude" || len(saved.ID) != 8 || saved.Source != "lineage" {
		t.Fatalf("memory_save: %+v", saved)
	}
	var user memory.Memory
	call(t, ann1, "memory_save", map[string]any{"text": "Ann prefers table-driven parser tests.", "scope": "user"}, &user)
	var agent memory.Memory
	call(t, ann1, "memory_save", map[string]any{"text": "tau owns the parser", "scope": "agent", "slug": "tau"}, &agent)

	search := func(cs *mcp.ClientSession, q string, args map[string]any) string {
		t.Helper()
		if args == nil {
			args = map[string]any{}
		}
		args["query"] = q
		var out MemorySearchOutput
		call(t, cs, "memory_search", args, &out)
		var got []string
		for _, h := range out.Hits {
			got = append(got, string(h.Scope)+":"+h.Text)
		}
		return strings.Join(got, " | ")
	}
	if got := search(ann1, "parser", nil); got != "user:Ann prefers table-driven parser tests. | project:The parser tests need LINEAGE_NOW set." {
		t.Fatalf("ann in p1: %s", got)
	}
	if got := search(ann1, "parser", map[string]any{"slug": "tau"}); !strings.HasPrefix(got, "agent:tau owns the parser | ") {
		t.Fatalf("ann in p1 as tau: %s", got)
	}
	ann2 := memoryClient(t, store, "ann", p2, "codex-mcp-client")
	if got := search(ann2, "parser", nil); got != "user:Ann prefers table-driven parser tests." {
		t.Fatalf("ann in p2 sees: %s", got)
	}
	bob1 := memoryClient(t, store, "bob", p1, "gemini-cli-mcp-client")
	if got := search(bob1, "parser", nil); got != "" {
		t.Fatalf("bob in p1 sees Ann's: %s", got)
	}
	var bobs memory.Memory
	call(t, bob1, "memory_save", map[string]any{"text": "Bob runs the parser benchmarks."}, &bobs)
	if got := search(bob1, "parser", nil); got != "project:Bob runs the parser benchmarks." {
		t.Fatalf("bob in p1 sees: %s", got)
	}
	if got := search(ann1, "benchmarks", nil); got != "" {
		t.Fatalf("ann sees Bob's: %s", got)
	}
	// Forgetting from another project finds nothing; from the memory's own
	// it hides it.
	if msg := callError(t, ann2, "memory_forget", map[string]any{"id": saved.ID}); !strings.Contains(msg, "not found") {
		t.Fatalf("forget from p2: %s", msg)
	}
	var forgot memory.Memory
	call(t, ann1, "memory_forget", map[string]any{"id": saved.ID}, &forgot)
	if forgot.Commit != saved.Commit {
		t.Fatalf("forgot %+v", forgot)
	}
	if got := search(ann1, "LINEAGE_NOW", nil); got != "" {
		t.Fatalf("a forgotten memory is found: %s", got)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_save", map[string]any{"text": " "}, "invalid memory text: empty"},
		{"memory_save", map[string]any{"text": "x", "scope": "agent"}, "no agent"},
		{"memory_search", map[string]any{"query": "x", "limit": 99}, "limit: want 0 to 50"},
		{"memory_forget", map[string]any{"id": "zz"}, "want at least 4 hex digits"},
	} {
		if msg := callError(t, ann1, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %s, want %q", c.tool, c.args, msg, c.want)
		}
	}
}
