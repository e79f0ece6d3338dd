package storetest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{{"ReadOnlyCompileKeepsTokenCounts", testReadOnlyTokenCache}})
}

// testReadOnlyTokenCache: counts a compile through a read-only handle made
// are kept through the handle's upgrade (tract.Upgrader, once per compile),
// so the next process's cold compile counts nothing; a store that cannot
// upgrade counts again on every cold compile.
func testReadOnlyTokenCache(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	rr, ok := e.store.(ReadOnlyReopener)
	if !ok {
		t.Skip("store cannot be reopened")
	}
	var calls atomic.Int64
	counter := func(string) (tokens.Counter, error) {
		return tokens.Func{Name: tokens.O200kBase, Fn: func(s string) int {
			calls.Add(1)
			return len(strings.Fields(s))
		}}, nil
	}
	// An injected tokenizer is never run at write time: nothing is counted yet.
	writer := tract.New(e.store, tract.Options{Now: e.clock.Now, Tokenizer: counter})
	const n = 20
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: strings.Repeat("word ", i+1)}}
	}
	_, err := writer.Import(e.ctx, "main", reqs)
	e.must(err)

	ro, err := rr.ReopenReadOnly()
	e.must(err)
	defer ro.Close()
	up, ok := ro.(tract.Upgrader)
	if !ok {
		t.Fatalf("the read-only handle %T cannot upgrade: its compiles never keep their counts", ro)
	}
	compile := func(s tract.Store) (int, int64) {
		t.Helper()
		calls.Store(0)
		res, err := tract.New(s, tract.Options{Now: e.clock.Now, Tokenizer: counter}).Compile(e.ctx, "main", tract.CompileOptions{})
		e.must(err)
		return res.Tokens, calls.Load()
	}
	// The read-only handle alone, its Upgrade hidden.
	plain := struct{ tract.Store }{ro}
	want, c := compile(plain)
	if c < n {
		t.Fatalf("first compile counted %d texts, want at least %d", c, n)
	}
	if _, c := compile(plain); c < n {
		t.Fatalf("without an upgrade a read-only compile kept counts (%d counted)", c)
	}
	counted := &upgradeCounter{Store: ro, up: up}
	if got, c := compile(counted); got != want || c < n || counted.n != 1 {
		t.Fatalf("compile with an upgrade: %d tokens (want %d), %d counted, upgraded %d times", got, want, c, counted.n)
	}
	got, c := compile(counted)
	if got != want || c != 0 || counted.n != 1 {
		t.Fatalf("compile after the counts were kept: %d tokens (want %d), %d counted (want 0), upgraded %d times (want 1)", got, want, c, counted.n)
	}
	if err := ro.Update(e.ctx, func(tract.Tx) error { return nil }); !errors.Is(err, tract.ErrReadOnly) {
		t.Fatalf("the read-only handle writes after an upgrade: %v", err)
	}
}

// upgradeCounter is a read-only store that counts its upgrades.
type upgradeCounter struct {
	tract.Store
	up tract.Upgrader
	n  int
}

func (u *upgradeCounter) Upgrade(ctx context.Context) (tract.Store, error) {
	u.n++
	return u.up.Upgrade(ctx)
}
