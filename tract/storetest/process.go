package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// Processes is the multi-process half of the suite: the spec promises that
// several processes may write one store at once and lose nothing, which
// goroutines sharing one handle cannot prove. The test binary re-executes
// itself as the writers; a store package wires it up with two lines:
//
//	func TestMain(m *testing.M) { storetest.ProcessMain(m, open) }
//	func TestProcesses(t *testing.T) { storetest.RunProcesses(t, storetest.Processes{...}) }
type Processes struct {
	// New makes a fresh store for one test and returns the name a worker
	// passes to the open function of ProcessMain, and the store itself
	// (closed by t.Cleanup) for the checks.
	New func(t *testing.T) (dsn string, s tract.Store)
	// Writers and Appends size the one-branch test (default 8 × 100).
	Writers, Appends int
}

// Environment of a worker process.
const (
	envRole = "LINEAGE_STORETEST_ROLE"
	envDSN  = "LINEAGE_STORETEST_DSN"
	envArg  = "LINEAGE_STORETEST_ARG"
	envN    = "LINEAGE_STORETEST_N"
)

// ProcessMain is TestMain for a store package that runs RunProcesses: in a
// worker process it opens the store named by the test with open, runs its
// role and exits; otherwise it runs the tests.
func ProcessMain(m *testing.M, open func(ctx context.Context, dsn string) (tract.Store, error)) {
	role := os.Getenv(envRole)
	if role == "" {
		os.Exit(m.Run())
	}
	n, _ := strconv.Atoi(os.Getenv(envN))
	if err := runWorker(open, role, os.Getenv(envDSN), os.Getenv(envArg), n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runWorker is one writer process: "append" commits n messages to tract
// arg; "mergegc" n times adds a commit to the child tract arg, merges it
// into its parent and collects everything unreachable at once.
func runWorker(open func(context.Context, string) (tract.Store, error), role, dsn, arg string, n int) error {
	ctx := context.Background()
	s, err := open(ctx, dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	r := tract.New(s, tract.Options{})
	for i := 0; i < n; i++ {
		switch role {
		case "append":
			if _, err := r.Commit(ctx, arg, message("user", fmt.Sprintf("%d-%d", os.Getpid(), i))); err != nil {
				return err
			}
		case "mergegc":
			if _, err := r.Commit(ctx, arg, message("assistant", fmt.Sprintf("kid %d", i))); err != nil {
				return err
			}
			if _, err := r.MergeFrom(ctx, arg, ""); err != nil {
				return err
			}
			if _, err := r.GC(ctx, tract.GCOptions{Retention: 0}); err != nil {
				return err
			}
		case "reset":
			_, err := r.Reset(ctx, arg, "HEAD~1")
			if err != nil && !errors.Is(err, tract.ErrBranchMoved) && !errors.Is(err, tract.ErrNotFound) {
				return err
			}
		default:
			return fmt.Errorf("unknown role %q", role)
		}
	}
	return nil
}

func message(role, text string) tract.CommitRequest {
	return tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role, Text: text}}
}

// RunProcesses runs the multi-process tests against p's stores.
func RunProcesses(t *testing.T, p Processes) {
	if p.Writers == 0 {
		p.Writers = 8
	}
	if p.Appends == 0 {
		p.Appends = 100
	}
	t.Run("AppendOneChain", func(t *testing.T) { testAppendOneChain(t, p) })
	t.Run("AppendWhileMergeFromAndGC", func(t *testing.T) { testAppendWhileMergeFromAndGC(t, p) })
	t.Run("ResetRacingAppends", func(t *testing.T) { testResetRacingAppends(t, p) })
}

func newProcessRepo(t *testing.T, p Processes) (string, *tract.Repo, tract.Store) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dsn, s := p.New(t)
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dsn, r, s
}

// startWorker starts the test binary as a worker process.
func startWorker(t *testing.T, dsn, role, arg string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envDSN+"="+dsn, envArg+"="+arg, fmt.Sprintf("%s=%d", envN, n))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func waitWorkers(t *testing.T, cmds []*exec.Cmd) {
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

// testAppendOneChain: N processes × M appends to one branch → N×M commits
// on one first-parent chain, none lost.
func testAppendOneChain(t *testing.T, p Processes) {
	dsn, r, s := newProcessRepo(t, p)
	var cmds []*exec.Cmd
	for i := 0; i < p.Writers; i++ {
		cmds = append(cmds, startWorker(t, dsn, "append", "main", p.Appends))
	}
	waitWorkers(t, cmds)
	if t.Failed() {
		return
	}
	want := p.Writers * p.Appends
	_, head, err := r.Head(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	if n := FirstParentLength(t, s, head.Commit); n != want {
		t.Fatalf("first-parent chain has %d commits, want %d", n, want)
	}
	rep, err := r.Verify(context.Background())
	if err != nil || len(rep.Damage) != 0 || rep.Commits != want {
		t.Fatalf("verify %+v %v", rep, err)
	}
}

// testAppendWhileMergeFromAndGC: 6 processes × 60 appends to one tract while
// another process loops merge-from and gc: nothing lost, verify clean.
func testAppendWhileMergeFromAndGC(t *testing.T, p Processes) {
	ctx := context.Background()
	dsn, r, _ := newProcessRepo(t, p)
	if _, err := r.Commit(ctx, "main", message("user", "start")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "help"}); err != nil {
		t.Fatal(err)
	}
	const procs, each, rounds = 6, 60, 30
	var cmds []*exec.Cmd
	for i := 0; i < procs; i++ {
		cmds = append(cmds, startWorker(t, dsn, "append", "main", each))
	}
	cmds = append(cmds, startWorker(t, dsn, "mergegc", "kid", rounds))
	waitWorkers(t, cmds)
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

// testResetRacingAppends: 3 processes × 60 appends race 2 processes × 15
// "reset HEAD~1". Each reset must move back exactly one commit from the head
// it replaced (never from an older head, which would silently drop an
// acknowledged append), so the chain ends seed + appends − resets long, and a
// gc that keeps nothing still leaves every reset's target in place.
func testResetRacingAppends(t *testing.T, p Processes) {
	ctx := context.Background()
	dsn, r, s := newProcessRepo(t, p)
	const appenders, each, resetters, resets = 3, 60, 2, 15
	// A seed chain long enough for every reset: on a loaded machine the
	// resetters may run before any appender has written, and a reset of the
	// root commit cannot land.
	const seed = 1 + resetters*resets
	for i := 0; i < seed; i++ {
		if _, err := r.Commit(ctx, "main", message("user", fmt.Sprintf("start %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	var cmds []*exec.Cmd
	for i := 0; i < appenders; i++ {
		cmds = append(cmds, startWorker(t, dsn, "append", "main", each))
	}
	for i := 0; i < resetters; i++ {
		cmds = append(cmds, startWorker(t, dsn, "reset", "main", resets))
	}
	waitWorkers(t, cmds)
	if t.Failed() {
		return
	}
	main, err := s.Tract(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	log, err := s.Reflog(ctx, tract.ReflogQuery{Tract: main.ID, Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range log {
		if e.Operation != "reset" {
			continue
		}
		n++
		old, err := s.Commit(ctx, tract.Hash(e.Old))
		if err != nil {
			t.Fatal(err)
		}
		if len(old.Parents) == 0 || string(old.Parents[0]) != e.New {
			t.Errorf("reset moved %s to %s, not to its first parent: a commit was dropped", tract.Hash(e.Old).Short(), tract.Hash(e.New).Short())
		}
	}
	if n == 0 {
		t.Fatalf("no reset landed")
	}
	if _, err := r.GC(ctx, tract.GCOptions{Retention: 0}); err != nil {
		t.Fatal(err)
	}
	_, head, err := r.Head(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := FirstParentLength(t, s, head.Commit), seed+appenders*each-n; got != want {
		t.Fatalf("chain has %d commits after %d appends and %d resets, want %d", got, appenders*each, n, want)
	}
}
