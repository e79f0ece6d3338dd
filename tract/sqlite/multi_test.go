package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// runRoleMulti runs the merge-from and gc loop: each round the child adds a
// commit, is merged into its parent, and everything unreachable is
// collected at once.
func runRoleMulti(ctx context.Context, r *tract.Repo, role, arg string) error {
	if role != "mergegc" {
		return fmt.Errorf("unknown role %q", role)
	}
	n, _ := strconv.Atoi(os.Getenv("LINEAGE_TEST_N"))
	for i := 0; i < n; i++ {
		if _, err := r.Commit(ctx, arg, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: fmt.Sprintf("kid %d", i)}}); err != nil {
			return err
		}
		if _, err := r.MergeFrom(ctx, arg, ""); err != nil {
			return err
		}
		if _, err := r.GC(ctx, tract.GCOptions{Retention: 0}); err != nil {
			return err
		}
	}
	return nil
}

// TestProcessesAppendWhileMergeFromAndGC: 6 processes × 60 appends to one
// tract while another process loops merge-from and gc: nothing lost, verify
// clean.
func TestProcessesAppendWhileMergeFromAndGC(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	db, r, _ := newDB(t)
	if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "start"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "help"}); err != nil {
		t.Fatal(err)
	}
	const procs, each, rounds = 6, 60, 30
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmds = append(cmds, spawnRole(t, db, "append", "main", each))
	}
	cmds = append(cmds, spawnRole(t, db, "mergegc", "kid", rounds))
	waitAll(t, cmds)
	if t.Failed() {
		return
	}
	res, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mine, kid := 0, 0
	for _, m := range res.Messages {
		switch m.Tract {
		case "main":
			mine++
		case "kid":
			kid++
		}
	}
	if mine != 1+procs*each || kid != rounds {
		t.Fatalf("main's compile has %d of its own messages (want %d) and %d of kid's (want %d)", mine, 1+procs*each, kid, rounds)
	}
	rep, err := r.Verify(ctx)
	if err != nil || len(rep.Damage) != 0 {
		t.Fatalf("verify %v %v", rep.Damage, err)
	}
}
