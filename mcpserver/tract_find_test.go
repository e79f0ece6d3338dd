package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// TestTractTagFindAndTools: tags, find with metadata, and a tools commit
// compiled into both request formats, through the MCP tools.
func TestTractTagFindAndTools(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	base, _ := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "deploy the base"}})
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var c tract.Commit
	call(t, cs, "tract_commit", map[string]any{"type": "message", "text": "Deploy again", "meta": map[string]any{"ticket": "OPS-1"}}, &c)
	if string(c.Meta) != `{"ticket":"OPS-1"}` {
		t.Fatalf("commit meta %s", c.Meta)
	}
	var tg TagOutput
	call(t, cs, "tract_tag", map[string]any{"name": "v1", "ref": base.Hash.Short()}, &tg)
	if tg.Created == nil || tg.Created.Commit != base.Hash {
		t.Fatalf("tag = %+v", tg)
	}
	call(t, cs, "tract_tag", nil, &tg)
	if len(tg.Tags) != 1 || tg.Tags[0].Name != "v1" {
		t.Fatalf("tags = %+v", tg)
	}
	var fo FindOutput
	call(t, cs, "tract_find", map[string]any{"text": "deploy"}, &fo)
	if len(fo.Found) != 2 || fo.Found[0].Commit.Hash != base.Hash || fo.Found[1].Commit.Hash != c.Hash {
		t.Fatalf("find = %+v", fo)
	}
	call(t, cs, "tract_find", map[string]any{"meta": map[string]any{"ticket": "OPS-1"}}, &fo)
	if len(fo.Found) != 1 || fo.Found[0].Commit.Hash != c.Hash {
		t.Fatalf("find meta = %+v", fo)
	}
	call(t, cs, "tract_find", map[string]any{"tag": "v1", "text": "deploy"}, &fo)
	if len(fo.Found) != 1 || fo.Found[0].Commit.Hash != base.Hash {
		t.Fatalf("find tag = %+v", fo)
	}
	if msg := callError(t, cs, "tract_find", map[string]any{"tag": "nosuch"}); !strings.Contains(msg, `tag "nosuch"`) {
		t.Fatalf("unknown tag: %s", msg)
	}
	call(t, cs, "tract_tag", map[string]any{"delete": "v1"}, &tg)
	if tg.Deleted == nil || tg.Deleted.Name != "v1" {
		t.Fatalf("delete = %+v", tg)
	}

	tools := []any{map[string]any{"name": "lookup", "description": "look up", "parameters": map[string]any{"type": "object"}}}
	call(t, cs, "tract_commit", map[string]any{"type": "tools", "tools": tools}, &c)
	if msg := callError(t, cs, "tract_commit", map[string]any{"type": "tools", "tools": []any{map[string]any{"name": "bad name"}}}); !strings.Contains(msg, "tools[0].name") {
		t.Fatalf("bad tool: %s", msg)
	}
	var out CompileOutput
	call(t, cs, "tract_compile", map[string]any{"format": "openai-request"}, &out)
	if out.OpenAIRequest == nil || len(out.OpenAIRequest.Tools) != 1 || out.OpenAIRequest.Tools[0].Function.Name != "lookup" {
		t.Fatalf("openai-request = %+v", out.OpenAIRequest)
	}
	call(t, cs, "tract_compile", map[string]any{"format": "anthropic"}, &out)
	if out.Anthropic == nil || len(out.Anthropic.Tools) != 1 || string(out.Anthropic.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Fatalf("anthropic = %+v", out.Anthropic)
	}
}

func init() {
	toolHintsWanted["tract_tag"] = struct{ readOnly, destructive, idempotent bool }{false, true, false}
	toolHintsWanted["tract_find"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
}
