package mcpserver

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	toolHintsWanted["tract_diff"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["tract_status"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	toolHintsWanted["tract_config"] = struct{ readOnly, destructive, idempotent bool }{false, true, true}
}

func commitText(t *testing.T, repo *tract.Repo, name, role, text string) tract.Hash {
	t.Helper()
	c, err := repo.Commit(context.Background(), name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role, Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Hash
}

// TestTractStatusAndConfig: the budget stored with tract_config is the one
// tract_status measures against; status names the unmerged child and the
// branch behind; config refuses bad values and a value without a key.
func TestTractStatusAndConfig(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		commitText(t, repo, "main", "user", fmt.Sprint("message ", i))
	}
	if _, err := repo.CreateBranch(ctx, "main", "side", "HEAD~2"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "research"}); err != nil {
		t.Fatal(err)
	}
	commitText(t, repo, "kid", "assistant", "a finding")
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var cfg tract.Config
	call(t, cs, "tract_config", nil, &cfg)
	if cfg.Budget != 0 {
		t.Fatalf("fresh config %+v", cfg)
	}
	var st tract.Status
	call(t, cs, "tract_status", nil, &st)
	if st.Budget != nil || st.Over || st.Branch != "main" || st.Tokens == 0 {
		t.Fatalf("status without a budget: %+v", st)
	}
	call(t, cs, "tract_config", map[string]any{"key": "budget", "value": "10"}, &cfg)
	if cfg.Budget != 10 {
		t.Fatalf("config after storing 10: %+v", cfg)
	}
	call(t, cs, "tract_status", nil, &st)
	want, err := repo.Status(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("tract_status = %+v\nwant %+v", st, want)
	}
	if st.Budget == nil || *st.Budget != 10 || !st.Over ||
		len(st.Children) != 1 || st.Children[0].Name != "kid" ||
		len(st.Branches) != 1 || st.Branches[0].Name != "side" || st.Branches[0].Behind != 2 || st.Branches[0].Ahead != 0 {
		t.Fatalf("status: %+v", st)
	}
	call(t, cs, "tract_config", map[string]any{"key": "budget", "value": "none"}, &cfg)
	if got, err := repo.Config(ctx, "main"); err != nil || got.Budget != 0 || cfg.Budget != 0 {
		t.Fatalf("after none: tool %+v, store %+v %v", cfg, got, err)
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"key": "budget", "value": "-3"}, "want a positive number of tokens"},
		{map[string]any{"key": "budget", "value": "lots"}, "want a positive number of tokens"},
		{map[string]any{"value": "10"}, "key: name the setting"},
		{map[string]any{"key": "budget"}, "value: give the value of budget"},
		{map[string]any{"key": "colour", "value": "red"}, "colour"},
		{map[string]any{"tract": "nosuch"}, "nosuch"},
	} {
		if msg := callError(t, cs, "tract_config", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("tract_config %v: %q, want it to mention %q", c.args, msg, c.want)
		}
	}
	if msg := callError(t, cs, "tract_status", map[string]any{"tract": "nosuch"}); !strings.Contains(msg, "nosuch") {
		t.Errorf("status of an unknown tract: %q", msg)
	}
}
