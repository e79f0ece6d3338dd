package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/tract"
)

func init() {
	toolHintsWanted["context_compile"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
}

// context_compile answers what lineage context --json prints: the chain of
// the target's directory, the agent's profile and the tract's history, with
// provenance, and refuses a budget the pinned part exceeds.
func TestContextCompile(t *testing.T) {
	dir := agentsProject(t)
	path, repo := newStore(t)
	ctx := context.Background()
	for _, c := range []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are terse."}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "Fix the bug in lib."}},
	} {
		if _, err := repo.Commit(ctx, "main", c); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), store: path}, nil)

	var res compose.Result
	call(t, cs, "context_compile", map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "format": "anthropic-request", "model": "m", "maxTokens": 64}, &res)
	if len(res.Blocks) != 4 {
		t.Fatalf("blocks = %+v", res.Blocks)
	}
	want := []string{compose.SourceInstructions, compose.SourceProfile, compose.SourceTract, compose.SourceTract}
	sum := res.Overhead
	for i, b := range res.Blocks {
		if b.Source != want[i] || b.Index != i {
			t.Errorf("block %d = %s (index %d), want %s", i, b.Source, b.Index, want[i])
		}
		sum += b.Tokens
	}
	if sum != res.Tokens {
		t.Errorf("blocks and overhead add up to %d, tokens %d", sum, res.Tokens)
	}
	if f := res.Blocks[0].Files; len(f) != 3 || f[0].Path != filepath.Join(dir, "AGENTS.md") || f[2].Path != filepath.Join(dir, "sub", "deep", "AGENTS.md") {
		t.Errorf("instruction files = %+v", f)
	}
	if f := res.Blocks[1].Fields; len(f) != 1 || f[0].Field != "guardrails" || len(f[0].Values) != 1 || f[0].Values[0].Pointer != "/guardrails/0" {
		t.Errorf("profile fields = %+v", f)
	}
	if b := res.Blocks[2]; b.Part != compose.PartSystem || b.Tract != "main" || strings.Join(b.SpawnPath, ">") != "main" {
		t.Errorf("tract instruction block = %+v", b)
	}
	req, _ := res.Request.(map[string]any)
	if req["model"] != "m" || !strings.HasPrefix(req["system"].(string), `<agents_context scope="initial">`) {
		t.Errorf("request = %v", res.Request)
	}

	msg := callError(t, cs, "context_compile", map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 20})
	if !strings.Contains(msg, "budget of 20 tokens is too small") || !strings.Contains(msg, "largest: ") {
		t.Errorf("over budget: %s", msg)
	}
	if msg := callError(t, cs, "context_compile", map[string]any{"target": "/"}); !strings.Contains(msg, "target") {
		t.Errorf("outside the roots: %s", msg)
	}
	if msg := callError(t, cs, "context_compile", map[string]any{"format": "xml"}); !strings.Contains(msg, "format") {
		t.Errorf("bad format: %s", msg)
	}
}
