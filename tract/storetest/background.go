package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{{"BackgroundCheckpoints", testBackgroundCheckpoints}})
}

// gated is a store whose transactions wait at a checkpoint write until
// released.
type gated struct {
	tract.Store
	reached chan struct{}
	release chan struct{}
}

func (g *gated) Update(ctx context.Context, fn func(tract.Tx) error) error {
	return g.Store.Update(ctx, func(tx tract.Tx) error { return fn(gatedTx{tx, g}) })
}

type gatedTx struct {
	tract.Tx
	g *gated
}

func (t gatedTx) PutCompiledView(ctx context.Context, cv tract.CompiledView) error {
	t.g.reached <- struct{}{}
	<-t.g.release
	return t.Tx.PutCompiledView(ctx, cv)
}

// testBackgroundCheckpoints: with BackgroundCheckpoints, a compile that
// makes a checkpoint due answers while the checkpoint is still being
// written (the write is held until the compile has returned), and so does
// the next compile; after Wait the checkpoint is stored at the head that
// made it due and a fresh process compiles from it. Compiles and commits
// interleaved from two goroutines, checkpoints coming due all along, give
// what a cold compile gives.
func testBackgroundCheckpoints(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.importNumbered(100)
	g := &gated{Store: e.store, reached: make(chan struct{}), release: make(chan struct{})}
	repo := tract.New(g, tract.Options{Now: e.clock.Now, CheckpointEvery: 8})
	repo.BackgroundCheckpoints()
	// What a cold compile from the history gives (it writes nothing: the
	// gate may hold the store's write lock).
	ref := tract.New(e.store, tract.Options{Now: e.clock.Now, NoCheckpoints: true})
	same := func(got tract.Result, budget int) {
		t.Helper()
		want, err := ref.CompileCold(e.ctx, "main", tract.CompileOptions{Budget: budget})
		e.must(err)
		if got.Head != want.Head || got.Tokens != want.Tokens || !slices.Equal(messageTexts(got), messageTexts(want)) {
			t.Fatalf("compile at %s: %d tokens, %d messages; cold: %s, %d, %d", got.Head.Short(), got.Tokens, len(got.Messages),
				want.Head.Short(), want.Tokens, len(want.Messages))
		}
	}

	// No checkpoint of this view yet: the first compile makes one due.
	first, err := repo.Compile(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	same(first, 0)
	<-g.reached // the write started after the compile returned
	again, err := repo.Compile(e.ctx, "main", tract.CompileOptions{Budget: 200})
	e.must(err)
	same(again, 200)
	close(g.release)
	repo.Wait()
	main, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	cv, err := storedView(e.ctx, e.store, main.ID)
	e.must(err)
	if cv.Head != first.Head || cv.Tokens+tract.PrimerTokens != first.Tokens {
		t.Fatalf("checkpoint at %s with %d tokens, want %s with %d", cv.Head.Short(), cv.Tokens, first.Head.Short(), first.Tokens-tract.PrimerTokens)
	}

	// Writes pass the gate from now on.
	go func() {
		for range g.reached {
		}
	}()
	defer close(g.reached)
	commitWhileCompiling(e, repo)
	last, err := repo.Compile(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	repo.Wait()
	// The token counts of the appended commits, made by the compiles,
	// were kept (in the background too) by the time Wait returns (before
	// the cold compile of same, which keeps them too).
	checkCountsKept(e, last)
	same(last, 0)
	fresh, err := tract.New(messagesOnly{noHistory{e.store}}, tract.Options{Now: e.clock.Now}).CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	same(fresh, 0)
}

// commitWhileCompiling appends 40 messages to main while two goroutines
// compile it (one after each append, one in a loop of its own), each at
// its own budget.
func commitWhileCompiling(e *env, repo *tract.Repo) {
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				if w == 0 {
					if _, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant",
						Text: fmt.Sprintf("reply %d", i)}}); err != nil {
						errs <- err
						return
					}
				}
				if _, err := repo.Compile(e.ctx, "main", tract.CompileOptions{Budget: 100 + 10*w}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.must(err)
	}
}

// checkCountsKept fails unless every message of res has its blob's token
// count stored.
func checkCountsKept(e *env, res tract.Result) {
	t := e.t
	t.Helper()
	var blobs []tract.Hash
	for _, m := range res.Messages {
		c, err := e.store.Commit(e.ctx, m.Commit)
		e.must(err)
		blobs = append(blobs, c.Content)
	}
	stored, err := e.store.Blobs(e.ctx, blobs, res.Encoding)
	e.must(err)
	if len(stored) != len(blobs) {
		t.Fatalf("%d blobs of %d", len(stored), len(blobs))
	}
	for _, b := range stored {
		if b.Tokens < 0 {
			t.Fatalf("blob %s: no token count kept", b.Hash.Short())
		}
	}
}
