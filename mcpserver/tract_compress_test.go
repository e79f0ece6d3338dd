package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	toolHintsWanted["tract_compress_plan"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["tract_compress"] = struct{ readOnly, destructive, idempotent bool }{false, false, false}
}

// TestTractCompressPlanThenCompress is the agent's loop: plan, write the
// summary, compress; the context then fits and the library sees the summary.
func TestTractCompressPlanThenCompress(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "a message of a few words"}}); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)
	if msg := callError(t, cs, "tract_compress_plan", nil); !strings.Contains(msg, "no budget") {
		t.Fatalf("plan without a budget: %q", msg)
	}
	var plan tract.CompressPlan
	call(t, cs, "tract_compress_plan", map[string]any{"budget": 60}, &plan)
	if len(plan.Ranges) != 1 || !plan.Fits || plan.Ranges[0].MaxSummaryTokens <= 0 {
		t.Fatalf("plan = %+v", plan)
	}
	if msg := callError(t, cs, "tract_compress", map[string]any{"range": "HEAD", "summary": "s"}); !strings.Contains(msg, "want FROM..TO") {
		t.Fatalf("bad range: %q", msg)
	}
	var res tract.CompressResult
	call(t, cs, "tract_compress", map[string]any{"range": plan.Ranges[0].Range, "summary": "Ten short messages."}, &res)
	if res.Commit == "" || len(res.Replaced) != len(plan.Ranges[0].Messages) {
		t.Fatalf("compress = %+v", res)
	}
	got, err := repo.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Tokens > 60 || got.Tokens != res.TokensAfter || got.Messages[0].Type != tract.TypeSummary {
		t.Fatalf("after compress: %d tokens (reported %d), first %+v", got.Tokens, res.TokensAfter, got.Messages[0])
	}
}
