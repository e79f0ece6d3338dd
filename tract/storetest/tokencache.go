package storetest

import (
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
// are kept through Options.CacheWriter, so the next process's cold compile
// counts nothing; without a writer every cold compile counts again.
func testReadOnlyTokenCache(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	rr, ok := e.store.(ReadOnlyReopener)
	rw, ok2 := e.store.(Reopener)
	if !ok || !ok2 {
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
	compile := func(o tract.Options) (int, int64) {
		t.Helper()
		calls.Store(0)
		o.Now, o.Tokenizer = e.clock.Now, counter
		res, err := tract.New(ro, o).Compile(e.ctx, "main", tract.CompileOptions{})
		e.must(err)
		return res.Tokens, calls.Load()
	}
	want, c := compile(tract.Options{})
	if c < n {
		t.Fatalf("first compile counted %d texts, want at least %d", c, n)
	}
	if _, c := compile(tract.Options{}); c < n {
		t.Fatalf("without a cache writer a read-only compile kept counts (%d counted)", c)
	}
	opened := 0
	withWriter := tract.Options{CacheWriter: func() (tract.Store, error) { opened++; return rw.Reopen() }}
	if got, c := compile(withWriter); got != want || c < n || opened != 1 {
		t.Fatalf("compile with a writer: %d tokens (want %d), %d counted, writer opened %d times", got, want, c, opened)
	}
	got, c := compile(withWriter)
	if got != want || c != 0 || opened != 1 {
		t.Fatalf("compile after the counts were kept: %d tokens (want %d), %d counted (want 0), writer opened %d times (want 1)", got, want, c, opened)
	}
}
