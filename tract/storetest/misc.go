package storetest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"ConcurrentAppendsOneChain", testConcurrentAppends},
		{"ConcurrentBudgetedCompiles", testConcurrentBudgetedCompiles},
		{"VerifyClean", testVerifyClean},
		{"ImportAndLog", testImportLog},
		{"ImportStreamsInChunks", testImportSeq},
		{"ReopenResumes", testReopen},
		{"ReadOnlyHandle", testReadOnly},
	})
}

// testConcurrentAppends: writers with their own repos append to one branch;
// every append lands on one first-parent chain.
func testConcurrentAppends(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	const writers, each = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := e.newRepo()
			for i := 0; i < each; i++ {
				if _, err := r.Commit(context.Background(), "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprintf("w%d-%d", w, i)}}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := FirstParentLength(t, e.store, e.head("main"))
	if n != writers*each {
		t.Fatalf("first-parent chain has %d commits, want %d", n, writers*each)
	}
}

// testConcurrentBudgetedCompiles: readers compile one repo's tract under
// two budgets (the budget work its views keep is extended in place) while
// a writer appends through the same repo; every result equals a cold
// compile at the head it reports.
func testConcurrentBudgetedCompiles(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	for i := 0; i < 40; i++ {
		e.user("main", fmt.Sprintf("message %d of the history", i))
	}
	const readers, appends = 4, 30
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < appends; i++ {
			if _, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprintf("appended %d", i)}}); err != nil {
				errs <- err
				return
			}
		}
	}()
	cold := e.newRepo()
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				o := tract.CompileOptions{Budget: 60 + 40*((r+i)%2)}
				res, err := e.repo.Compile(e.ctx, "main", o)
				if err != nil {
					errs <- err
					return
				}
				o.At = string(res.Head)
				want, err := cold.CompileCold(e.ctx, "main", o)
				if err != nil {
					errs <- err
					return
				}
				if res.Tokens != want.Tokens || len(res.Messages) != len(want.Messages) || len(res.Dropped) != len(want.Dropped) ||
					res.DroppedTokens != want.DroppedTokens || res.Messages[len(res.Messages)-1].Commit != want.Messages[len(want.Messages)-1].Commit {
					errs <- fmt.Errorf("budget %d at %s: %d tokens, %d messages, %d dropped; cold %d, %d, %d",
						o.Budget, res.Head.Short(), res.Tokens, len(res.Messages), len(res.Dropped), want.Tokens, len(want.Messages), len(want.Dropped))
					return
				}
			}
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// FirstParentLength counts the commits on head's first-parent chain.
func FirstParentLength(t testing.TB, s tract.Store, head tract.Hash) int {
	t.Helper()
	n := 0
	for h := head; h != ""; n++ {
		c, err := s.Commit(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		h = ""
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	return n
}

func testVerifyClean(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	_, err := e.repo.Edit(e.ctx, "main", string(a), "ONE", "")
	e.must(err)
	_, err = e.repo.CreateBranch(e.ctx, "main", "f", "HEAD~1")
	e.must(err)
	rep, err := e.repo.Verify(e.ctx)
	e.must(err)
	if len(rep.Damage) != 0 || rep.Commits != 2 || rep.Blobs != 2 || rep.Refs != 3 {
		t.Fatalf("verify %+v", rep)
	}
}

func testImportLog(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	var reqs []tract.CommitRequest
	for i := 0; i < 5; i++ {
		reqs = append(reqs, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprint("m", i)}})
	}
	cs, err := e.repo.Import(e.ctx, "main", reqs)
	e.must(err)
	if len(cs) != 5 || e.head("main") != cs[4].Hash || cs[1].Parents[0] != cs[0].Hash {
		t.Fatalf("import %+v", cs)
	}
	log, err := e.repo.Log(e.ctx, "main", tract.LogOptions{N: 2})
	e.must(err)
	if len(log) != 2 || log[0].Hash != cs[4].Hash || log[0].Summary != "m4" || len(log[0].Refs) != 2 {
		t.Fatalf("log %+v", log)
	}
	// Over several chunks (whose arrays an import reuses) Import returns
	// every commit as stored.
	const n = 4321
	reqs = reqs[:0]
	for i := range n {
		reqs = append(reqs, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: fmt.Sprint("chunked ", i)}})
	}
	cs, err = e.repo.Import(e.ctx, "main", reqs)
	e.must(err)
	log, err = e.repo.Log(e.ctx, "main", tract.LogOptions{N: n})
	e.must(err)
	if len(cs) != n || len(log) != n {
		t.Fatalf("import of %d: %d commits returned, %d in the log", n, len(cs), len(log))
	}
	for i, c := range cs {
		if l := log[n-1-i]; c.Hash != l.Hash || l.Summary != fmt.Sprint("chunked ", i) || (i > 0 && c.Parents[0] != cs[i-1].Hash) {
			t.Fatalf("commit %d returned as %s (parents %v), stored as %s %q", i, c.Hash.Short(), c.Parents, l.Hash.Short(), l.Summary)
		}
	}
}

// testImportSeq: a streamed import longer than several chunks is one
// chain in one transaction, blobs shared across chunks included; a bad
// message or a failing source late in it writes nothing.
func testImportSeq(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	const n, distinct = 4500, 2500
	msg := func(i int) tract.CommitRequest {
		return tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d word%d", i%distinct, i%distinct)}}
	}
	seq := func(bad int, fail error) iter.Seq2[tract.CommitRequest, error] {
		return func(yield func(tract.CommitRequest, error) bool) {
			for i := range n {
				req := msg(i)
				if i == bad {
					req.Content.Role = "robot"
				}
				if i == bad && fail != nil {
					yield(tract.CommitRequest{}, fail)
					return
				}
				if !yield(req, nil) {
					return
				}
			}
		}
	}
	before := e.user("main", "before")
	stored := func() int {
		rep, err := e.repo.Verify(e.ctx)
		e.must(err)
		if len(rep.Damage) != 0 {
			t.Fatalf("damage %+v", rep.Damage)
		}
		return rep.Commits
	}
	_, err := e.repo.ImportSeq(e.ctx, "main", seq(4001, nil))
	var ve *tract.ValidationError
	if !errors.As(err, &ve) || !strings.HasPrefix(err.Error(), "message 4002: ") {
		t.Fatalf("bad message 4002: got %v", err)
	}
	source := errors.New("source failed")
	if _, err := e.repo.ImportSeq(e.ctx, "main", seq(3000, source)); err != source {
		t.Fatalf("failing source: got %v, want its error as it is", err)
	}
	if e.head("main") != before || stored() != 1 || len(e.find("main", tract.FindOptions{Text: "word7"})) != 0 {
		t.Fatal("a failed import wrote something")
	}
	sum, err := e.repo.ImportSeq(e.ctx, "main", seq(-1, nil))
	e.must(err)
	if sum.Count != n || sum.Head != e.head("main") || stored() != n+1 {
		t.Fatalf("import %+v, head %s, %d commits stored", sum, e.head("main"), stored())
	}
	log, err := e.repo.Log(e.ctx, "main", tract.LogOptions{})
	e.must(err)
	if len(log) != n+1 || log[n].Hash != before || log[0].Summary != "message 1999 word1999" {
		t.Fatalf("log: %d commits, oldest %s, newest %q", len(log), log[len(log)-1].Hash.Short(), log[0].Summary)
	}
	res, err := e.repo.Compile(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if len(res.Messages) != n+1 || res.Messages[n].Content != "message 1999 word1999" || res.Messages[2001].Content != "message 2000 word2000" {
		t.Fatalf("compile: %d messages", len(res.Messages))
	}
	// An import's commits are in time order as in the file: the first
	// matches by time are its first messages.
	first := e.find("main", tract.FindOptions{Text: "message", Limit: 3})
	if want := []tract.Hash{log[n-1].Hash, log[n-2].Hash, log[n-3].Hash}; !slices.Equal(first, want) {
		t.Fatalf("find -n 3: %v, want the first three imported %v", first, want)
	}
	// Messages 7 and 2507 share a blob (written in different chunks).
	if got := e.find("main", tract.FindOptions{Text: "word7"}); len(got) != 2 {
		t.Fatalf("find word7: %d hits, want 2", len(got))
	}
}

func testReopen(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	ro, ok := e.store.(Reopener)
	if !ok {
		t.Skip("store cannot be reopened")
	}
	mainT, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	e.user("main", "before reopen")
	s2, err := ro.Reopen()
	e.must(err)
	defer s2.Close()
	r2 := tract.New(s2, tract.Options{Now: e.clock.Now})
	t2, created, err := r2.Init(e.ctx)
	e.must(err)
	if created || t2.ID != mainT.ID {
		t.Fatalf("reopen made a new tract: created=%v id %s vs %s", created, t2.ID, mainT.ID)
	}
	if _, err := r2.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "after"}}); err != nil {
		t.Fatal(err)
	}
	res, err := r2.Compile(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	equal(t, texts(res), "user: before reopen\nuser: after\n")
}

// ReadOnlyReopener is a store that can open a read-only handle on its own
// data.
type ReadOnlyReopener interface {
	ReopenReadOnly() (tract.Store, error)
}

// testReadOnly: a read-only handle serves every read command and refuses
// every write, changing nothing.
func testReadOnly(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	rr, ok := e.store.(ReadOnlyReopener)
	if !ok {
		t.Skip("store cannot be reopened read-only")
	}
	e.user("main", "hello")
	e.user("main", "world")
	want, err := e.repo.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	s2, err := rr.ReopenReadOnly()
	e.must(err)
	defer s2.Close()
	r2 := tract.New(s2, tract.Options{Now: e.clock.Now})
	got, err := r2.Compile(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	equal(t, texts(got), texts(want))
	log, err := r2.Log(e.ctx, "main", tract.LogOptions{N: 1})
	e.must(err)
	if len(log) != 1 || log[0].Summary != "world" {
		t.Fatalf("read-only log %+v", log)
	}
	_, err = r2.Show(e.ctx, "main", "HEAD~1")
	e.must(err)
	rep, err := r2.Verify(e.ctx)
	if err != nil || len(rep.Damage) != 0 {
		t.Fatalf("read-only verify: %+v %v", rep, err)
	}
	_, err = r2.Blame(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	_, err = r2.List(e.ctx)
	e.must(err)
	if _, err := r2.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "no"}}); !errors.Is(err, tract.ErrReadOnly) {
		t.Fatalf("commit through a read-only handle: %v, want ErrReadOnly", err)
	}
	if _, err := r2.NewTract(e.ctx, "other"); !errors.Is(err, tract.ErrReadOnly) {
		t.Fatalf("new tract through a read-only handle: %v, want ErrReadOnly", err)
	}
	after, err := e.repo.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	equal(t, texts(after), texts(want))
}

// testStoreParentReadThenDeleted: a transaction that read a commit (as a
// commit reads the head it builds on) may put a child on it, and may not
// once it deleted that commit.
func testStoreParentReadThenDeleted(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	d := raw(t, s, "t1", "d")
	child := func(msg string) tract.Commit {
		c := tract.Commit{Parents: []tract.Hash{d.Hash}, Operation: tract.OpMerge, Tract: "t1", Time: t0, Message: msg}
		c.Hash = c.ComputeHash()
		return c
	}
	update(t, s, func(tx tract.Tx) error {
		if _, err := tx.Commit(ctx, d.Hash); err != nil {
			return err
		}
		return tx.PutCommits(ctx, child("kept"))
	})
	if _, err := s.Commit(ctx, child("kept").Hash); err != nil {
		t.Fatalf("the child of a commit read in its transaction: %v", err)
	}
	update(t, s, func(tx tract.Tx) error { return tx.DeleteCommits(ctx, []tract.Hash{child("kept").Hash}) })
	err := s.Update(ctx, func(tx tract.Tx) error {
		if _, err := tx.Commit(ctx, d.Hash); err != nil {
			return err
		}
		if err := tx.DeleteCommits(ctx, []tract.Hash{d.Hash}); err != nil {
			return err
		}
		return tx.PutCommits(ctx, child("lost"))
	})
	if err == nil {
		t.Fatal("stored a commit on a parent its transaction deleted")
	}
	if _, err := s.Commit(ctx, d.Hash); err != nil {
		t.Fatalf("the failed transaction's delete stayed: %v", err)
	}
}
