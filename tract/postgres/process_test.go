package postgres_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestMain lets the test binary act as a writer process: with
// LINEAGE_TEST_ROLE set it runs that role against the schema
// LINEAGE_TEST_SCHEMA of the test server and exits.
func TestMain(m *testing.M) {
	if role := os.Getenv("LINEAGE_TEST_ROLE"); role != "" {
		if err := runRole(role, os.Getenv("LINEAGE_TEST_SCHEMA"), os.Getenv("LINEAGE_TEST_ARG")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runRole(role, schema, arg string) error {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("LINEAGE_TEST_POSTGRES"))
	if err != nil {
		return err
	}
	s, err := postgres.OpenConfig(ctx, withSchema(cfg, schema), postgres.Options{MaxConns: 2})
	if err != nil {
		return err
	}
	defer s.Close()
	r := tract.New(s, tract.Options{})
	n, _ := strconv.Atoi(os.Getenv("LINEAGE_TEST_N"))
	for i := 0; i < n; i++ {
		switch role {
		case "append":
			if _, err := r.Commit(ctx, arg, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprintf("%d-%d", os.Getpid(), i)}}); err != nil {
				return err
			}
		case "mergegc":
			if _, err := r.Commit(ctx, arg, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: fmt.Sprintf("kid %d", i)}}); err != nil {
				return err
			}
			if _, err := r.MergeFrom(ctx, arg, ""); err != nil {
				return err
			}
			if _, err := r.GC(ctx, tract.GCOptions{Retention: 0}); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown role %q", role)
		}
	}
	return nil
}

// spawnRole starts the test binary in a role.
func spawnRole(t *testing.T, schema, role, arg string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINEAGE_TEST_ROLE="+role, "LINEAGE_TEST_SCHEMA="+schema, "LINEAGE_TEST_ARG="+arg, fmt.Sprintf("LINEAGE_TEST_N=%d", n))
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

// newDB is a fresh schema with tract main, for processes to share.
func newDB(t *testing.T) (string, *tract.Repo, tract.Store) {
	t.Helper()
	cfg, schema := freshSchema(t)
	s := openIn(t, cfg, postgres.Options{Create: true})
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return schema, r, s
}

// TestProcessesAppendOneChain: 8 processes × 200 appends to one branch
// through PostgreSQL → 1,600 commits on one first-parent chain, none lost.
func TestProcessesAppendOneChain(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	schema, r, s := newDB(t)
	const procs, each = 8, 200
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmds = append(cmds, spawnRole(t, schema, "append", "main", each))
	}
	waitAll(t, cmds)
	if t.Failed() {
		return
	}
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

// TestProcessesAppendWhileMergeFromAndGC: 6 processes × 60 appends to one
// tract while another process loops merge-from and gc: nothing lost,
// verify clean.
func TestProcessesAppendWhileMergeFromAndGC(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	schema, r, _ := newDB(t)
	if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "start"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "help"}); err != nil {
		t.Fatal(err)
	}
	const procs, each, rounds = 6, 60, 30
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmds = append(cmds, spawnRole(t, schema, "append", "main", each))
	}
	cmds = append(cmds, spawnRole(t, schema, "mergegc", "kid", rounds))
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
