package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// TestMain lets the test binary act as a writer process: with
// LINEAGE_TEST_ROLE set it runs that role against LINEAGE_TEST_DB and exits.
func TestMain(m *testing.M) {
	if role := os.Getenv("LINEAGE_TEST_ROLE"); role != "" {
		if err := runRole(role, os.Getenv("LINEAGE_TEST_DB"), os.Getenv("LINEAGE_TEST_ARG")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runRole(role, db, arg string) error {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	r := tract.New(s, tract.Options{})
	switch role {
	case "append":
		n, _ := strconv.Atoi(os.Getenv("LINEAGE_TEST_N"))
		for i := 0; i < n; i++ {
			if _, err := r.Commit(ctx, arg, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprintf("%d-%d", os.Getpid(), i)}}); err != nil {
				return err
			}
		}
		return nil
	}
	return runRoleMulti(ctx, r, role, arg)
}

// spawnRole starts the test binary in a role.
func spawnRole(t *testing.T, db, role, arg string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINEAGE_TEST_ROLE="+role, "LINEAGE_TEST_DB="+db, "LINEAGE_TEST_ARG="+arg, fmt.Sprintf("LINEAGE_TEST_N=%d", n))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func waitAll(t *testing.T, cmds []*exec.Cmd) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	for i, c := range cmds {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.Wait() }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
}

func newDB(t *testing.T) (string, *tract.Repo, tract.Store) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(context.Background(), db, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, r, s
}

// TestProcessesAppendOneChain: 8 processes × 100 appends to one branch →
// 800 commits on one first-parent chain, none lost.
func TestProcessesAppendOneChain(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	db, r, s := newDB(t)
	const procs, each = 8, 100
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmds = append(cmds, spawnRole(t, db, "append", "main", each))
	}
	waitAll(t, cmds)
	_, head, err := r.Head(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	if n := storetest.FirstParentLength(t, s, head.Commit); n != procs*each {
		t.Fatalf("first-parent chain has %d commits, want %d", n, procs*each)
	}
	rep, err := r.Verify(context.Background())
	if err != nil || len(rep.Damage) != 0 || rep.Commits != procs*each {
		t.Fatalf("verify %+v %v", rep, err)
	}
}
