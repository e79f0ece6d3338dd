package compose_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
)

// A pinned tool result keeps its tool call (they are one unit for the
// budget): the pinned part a budget error reports includes the call, so a
// budget one token below what the unit needs is refused with a Needed
// above the budget (rapid once drew exactly that budget and saw a Needed
// of the pinned messages alone, below it).
func TestBudgetErrorCountsPinnedUnits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo := newRepo(t, dir, nil)
	var result tract.Hash
	for _, c := range []tract.Content{
		{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "grep for the handler"},
		{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: "call1", Name: "grep", Arguments: `{"q":"handler with a long argument list"}`}}},
		{Type: tract.TypeToolResult, ToolCallID: "call1", Text: "api/handler.go:12"},
	} {
		cm, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		result = cm.Hash
	}
	if _, err := repo.Annotate(ctx, "main", string(result), tract.Pinned, "test"); err != nil {
		t.Fatal(err)
	}
	full, err := repo.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unit := tract.PrimerTokens
	for _, m := range full.Messages {
		if m.Type != tract.TypeMessage {
			unit += m.Tokens
		}
	}
	o := compose.Options{Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
		Repo: repo, Tract: "main", Budget: unit - 1}
	for _, cold := range []bool{false, true} {
		o.Cold = cold
		_, err = compose.Compile(ctx, o)
		var be *compose.BudgetError
		if !errors.As(err, &be) {
			t.Fatalf("cold %v: budget %d for a pinned unit of %d: %v", cold, o.Budget, unit, err)
		}
		if be.Needed != unit {
			t.Errorf("cold %v: needed %d, the pinned unit with its call needs %d: %v", cold, be.Needed, unit, be)
		}
	}
	o.Budget = unit
	if res, err := compose.Compile(ctx, o); err != nil || res.Tokens != unit {
		t.Fatalf("budget %d: %v (tokens %d)", unit, err, res.Tokens)
	}
}
