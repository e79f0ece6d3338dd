package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"ResolveRefs", testResolve},
		{"Branches", testBranches},
		{"BranchNames", testBranchNames},
		{"CheckoutAndReset", testCheckoutReset},
		{"MergeFastForward", testMergeFF},
		{"MergeNoFFNeverRenders", testMergeNoFF},
		{"NestedMergeOnce", testNestedMerge},
		{"MergeConflictBothEdit", testConflictBothEdit},
		{"MergeConflictSkipVsEdit", testConflictSkipVsEdit},
		{"MergeSkipBeforeForkRestored", testMergeSkipBeforeFork},
		{"MergeSameEditAndSkipSymmetric", testMergeSameEditSkip},
		{"MergeDeleteCurrentRefusedFirst", testMergeDeleteCurrent},
		{"MergeBranchMoved", testMergeBranchMoved},
		{"CherryPick", testCherryPick},
	})
}

func testResolve(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	main, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	a := e.user("main", "one")
	b := e.user("main", "two")
	_, err = e.repo.NewTract(e.ctx, "other")
	e.must(err)
	o := e.user("other", "x")
	for ref, want := range map[string]tract.Hash{
		string(a): a, string(b)[:10]: b, "HEAD": b, "main": b, "HEAD~1": a, "main~": a, "HEAD~0": b,
		"other:HEAD": o, "other:main": o, strings.ToUpper(string(a)[:12]): a,
	} {
		got, err := e.repo.Resolve(e.ctx, main, ref)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, got.Short(), err, want.Short())
		}
	}
	_, err = e.repo.Resolve(e.ctx, main, "HEAD~5")
	wantErr(t, err, tract.ErrNotFound, "HEAD~5")
	_, err = e.repo.Resolve(e.ctx, main, string(a)[:3])
	wantValidation(t, err, "at least 4 characters")
	_, err = e.repo.Resolve(e.ctx, main, "nosuch")
	wantErr(t, err, tract.ErrNotFound, `"nosuch"`)
	_, err = e.repo.Resolve(e.ctx, main, "ghost:HEAD")
	wantErr(t, err, tract.ErrNotFound, `tract "ghost"`)
	// Make an ambiguous 4-character prefix by appending until two hashes share one.
	seen := map[string]tract.Hash{}
	for i := 0; ; i++ {
		h := e.user("main", strings.Repeat("x", i))
		p := string(h)[:4]
		if prev, ok := seen[p]; ok {
			_, err = e.repo.Resolve(e.ctx, main, p)
			wantErr(t, err, tract.ErrAmbiguous, "matches "+min(prev.Short(), h.Short()))
			break
		}
		seen[p] = h
	}
}

func testBranches(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	_, err := e.repo.CreateBranch(e.ctx, "main", "feature", "")
	e.must(err)
	_, err = e.repo.CreateBranch(e.ctx, "main", "feature", "")
	wantErr(t, err, tract.ErrExists, `branch "feature"`)
	e.must(e.repo.Switch(e.ctx, "main", "feature"))
	f := e.user("main", "on feature")
	bs, err := e.repo.Branches(e.ctx, "main")
	e.must(err)
	if len(bs) != 2 || bs[0].Name != "feature" || !bs[0].Current || bs[0].Commit != f || bs[1].Commit != a {
		t.Fatalf("branches %+v", bs)
	}
	wantErr(t, e.repo.DeleteBranch(e.ctx, "main", "feature", false), tract.ErrCurrentBranch, "current branch")
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	equal(t, e.texts("main"), "user: one\n")
	wantErr(t, e.repo.DeleteBranch(e.ctx, "main", "feature", false), tract.ErrUnmerged, "--force")
	e.must(e.repo.DeleteBranch(e.ctx, "main", "feature", true))
	wantErr(t, e.repo.Switch(e.ctx, "main", "feature"), tract.ErrNotFound, "feature")
	_, err = e.repo.CreateBranch(e.ctx, "main", "merged", "")
	e.must(err)
	e.must(e.repo.DeleteBranch(e.ctx, "main", "merged", false))
}

func testBranchNames(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "one")
	for _, bad := range []string{"has space", "a..b", ".hidden", "-dash", "x.lock", "HEAD", "a:b", "a~1", "end/", "a//b", "q?", "", "a@{b"} {
		_, err := e.repo.CreateBranch(e.ctx, "main", bad, "")
		wantValidation(t, err, "invalid branch name")
	}
	for _, good := range []string{"feature/x", "v1.2", "fix-1", "été"} {
		_, err := e.repo.CreateBranch(e.ctx, "main", good, "")
		e.must(err)
	}
}

func testCheckoutReset(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	b := e.user("main", "two")
	h, err := e.repo.Checkout(e.ctx, "main", "HEAD~1")
	e.must(err)
	if h != a {
		t.Fatal("checkout resolved wrong commit")
	}
	_, head, err := e.repo.Head(e.ctx, "main")
	e.must(err)
	if head.Branch != "" || head.Commit != a {
		t.Fatalf("head %+v, want detached at one", head)
	}
	d := e.user("main", "detached work")
	equal(t, e.texts("main"), "user: one\nuser: detached work\n")
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	equal(t, e.texts("main"), "user: one\nuser: two\n")
	_, err = e.repo.Reset(e.ctx, "main", string(d))
	e.must(err)
	equal(t, e.texts("main"), "user: one\nuser: detached work\n")
	mainT, _ := e.repo.Tract(e.ctx, "main")
	log, err := e.store.Reflog(e.ctx, tract.ReflogQuery{Tract: mainT.ID, Ref: "main"})
	e.must(err)
	last := log[len(log)-1]
	if last.Old != string(b) || last.New != string(d) || last.Operation != "reset" {
		t.Fatalf("reflog %+v", last)
	}
}

func testMergeFF(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "one")
	_, err := e.repo.CreateBranch(e.ctx, "main", "f", "")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", "f"))
	f := e.user("main", "two")
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	res, err := e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{})
	e.must(err)
	if res.Kind != tract.MergeFastForward || res.Head != f || e.head("main") != f {
		t.Fatalf("merge %+v", res)
	}
	res, err = e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{})
	e.must(err)
	if res.Kind != tract.MergeUpToDate {
		t.Fatalf("second merge %+v", res)
	}
}

func testMergeNoFF(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "one")
	e.onBranch("f", func() {
		e.user("main", "two")
	})
	res, err := e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{NoFF: true})
	e.must(err)
	if res.Kind != tract.MergeCommit || res.Merge == "" {
		t.Fatalf("merge %+v", res)
	}
	c, err := e.store.Commit(e.ctx, res.Merge)
	e.must(err)
	if len(c.Parents) != 2 || c.Operation != tract.OpMerge {
		t.Fatalf("merge commit %+v", c)
	}
	e.user("main", "three")
	out := e.compile("main", tract.CompileOptions{})
	equal(t, texts(out), "user: one\nuser: two\nuser: three\n")
	for _, m := range out.Messages {
		if m.Commit == res.Merge {
			t.Fatal("merge commit rendered as a message")
		}
	}
}

// testNestedMerge: b merged into a, then a into main: every commit of a and
// b appears exactly once in main's compile.
func testNestedMerge(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "m1")
	_, err := e.repo.CreateBranch(e.ctx, "main", "a", "")
	e.must(err)
	e.user("main", "m2")
	e.must(e.repo.Switch(e.ctx, "main", "a"))
	e.user("main", "a1")
	_, err = e.repo.CreateBranch(e.ctx, "main", "b", "")
	e.must(err)
	e.user("main", "a2")
	e.must(e.repo.Switch(e.ctx, "main", "b"))
	e.user("main", "b1")
	e.user("main", "b2")
	e.must(e.repo.Switch(e.ctx, "main", "a"))
	_, err = e.repo.Merge(e.ctx, "main", "b", tract.MergeOptions{})
	e.must(err)
	e.user("main", "a3")
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	e.compile("main", tract.CompileOptions{})
	_, err = e.repo.Merge(e.ctx, "main", "a", tract.MergeOptions{})
	e.must(err)
	e.user("main", "m3")
	equal(t, e.texts("main"), "user: m1\nuser: m2\nuser: a1\nuser: a2\nuser: b1\nuser: b2\nuser: a3\nuser: m3\n")
}

// branchEdits makes main and f both edit commit a; f's edit is "theirs".
func branchEdits(e *env) tract.Hash {
	a := e.user("main", "orig")
	_, err := e.repo.CreateBranch(e.ctx, "main", "f", "")
	e.must(err)
	_, err = e.repo.Edit(e.ctx, "main", string(a), "ours", "")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", "f"))
	_, err = e.repo.Edit(e.ctx, "main", string(a), "theirs", "")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	return a
}

func testConflictBothEdit(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := branchEdits(e)
	head, before := e.head("main"), e.commitCount()
	_, err := e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{})
	var ce *tract.ConflictError
	wantErr(t, err, tract.ErrConflict, "both-edit on "+a.Short())
	if !asConflict(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Target != a {
		t.Fatalf("conflicts %v", err)
	}
	if e.head("main") != head || e.commitCount() != before {
		t.Fatal("conflicting merge changed something")
	}
	res, err := e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{Strategy: "theirs"})
	e.must(err)
	if len(res.Resolved) != 1 {
		t.Fatalf("resolved %+v", res.Resolved)
	}
	equal(t, e.texts("main"), "user: theirs\n")
	tip, err := e.store.Commit(e.ctx, res.Head)
	e.must(err)
	if tip.Operation != tract.OpEdit || tip.Parents[0] != res.Merge {
		t.Fatalf("strategy not recorded as an edit on top of the merge: %+v", tip)
	}

	e2 := setup(t, newStore)
	branchEdits(e2)
	_, err = e2.repo.Merge(e2.ctx, "main", "f", tract.MergeOptions{Strategy: "ours"})
	e2.must(err)
	equal(t, e2.texts("main"), "user: ours\n")
	_, err = e2.repo.Merge(e2.ctx, "main", "f", tract.MergeOptions{Strategy: "mine"})
	wantValidation(t, err, `invalid strategy "mine"`)
}

func asConflict(err error, ce **tract.ConflictError) bool {
	c, ok := err.(*tract.ConflictError)
	*ce = c
	return ok
}

func testConflictSkipVsEdit(t *testing.T, newStore Factory) {
	for _, strategy := range []string{"", "ours", "theirs"} {
		e := setup(t, newStore)
		a := e.user("main", "orig")
		e.user("main", "keep")
		_, err := e.repo.CreateBranch(e.ctx, "main", "f", "")
		e.must(err)
		e.user("main", "main work")
		_, err = e.repo.Annotate(e.ctx, "main", string(a), tract.Skip, "")
		e.must(err)
		e.must(e.repo.Switch(e.ctx, "main", "f"))
		_, err = e.repo.Edit(e.ctx, "main", string(a), "edited", "")
		e.must(err)
		e.must(e.repo.Switch(e.ctx, "main", "main"))
		_, err = e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{Strategy: strategy})
		switch strategy {
		case "":
			wantErr(t, err, tract.ErrConflict, "skip-vs-edit on "+a.Short())
		case "ours":
			e.must(err)
			equal(t, e.texts("main"), "user: keep\nuser: main work\n")
		case "theirs":
			e.must(err)
			equal(t, e.texts("main"), "user: edited\nuser: keep\nuser: main work\n")
		}
	}
}

// testMergeSkipBeforeFork: a skip recorded before the fork and taken back
// on one side (annotate X skip, fork, edit X, annotate X normal, merge a
// branch that never touched X) is no conflict: skip-vs-edit is decided on
// each side's newest annotation since the fork, and neither side skips X
// now. The merge is clean and shows the edit (it used to raise
// skip-vs-edit, and --strategy theirs re-skipped the restored message).
func testMergeSkipBeforeFork(t *testing.T, newStore Factory) {
	for _, strategy := range []string{"", "ours", "theirs"} {
		e := setup(t, newStore)
		x := e.user("main", "orig")
		e.user("main", "keep")
		_, err := e.repo.Annotate(e.ctx, "main", string(x), tract.Skip, "")
		e.must(err)
		_, err = e.repo.CreateBranch(e.ctx, "main", "f", "")
		e.must(err)
		e.must(e.repo.Switch(e.ctx, "main", "f"))
		e.user("main", "side work")
		e.must(e.repo.Switch(e.ctx, "main", "main"))
		_, err = e.repo.Edit(e.ctx, "main", string(x), "edited", "")
		e.must(err)
		_, err = e.repo.Annotate(e.ctx, "main", string(x), tract.Normal, "")
		e.must(err)
		res, err := e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{Strategy: strategy})
		e.must(err)
		if len(res.Resolved) != 0 {
			t.Fatalf("strategy %q resolved %+v", strategy, res.Resolved)
		}
		equal(t, e.texts("main"), "user: edited\nuser: keep\nuser: side work\n")
	}
	// A skip made on one side since the fork still conflicts with an edit
	// on the other, even when a skip before the fork was taken back first.
	e := setup(t, newStore)
	x := e.user("main", "orig")
	_, err := e.repo.Annotate(e.ctx, "main", string(x), tract.Skip, "")
	e.must(err)
	_, err = e.repo.CreateBranch(e.ctx, "main", "f", "")
	e.must(err)
	e.user("main", "main work")
	_, err = e.repo.Annotate(e.ctx, "main", string(x), tract.Normal, "")
	e.must(err)
	_, err = e.repo.Annotate(e.ctx, "main", string(x), tract.Skip, "again")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", "f"))
	_, err = e.repo.Edit(e.ctx, "main", string(x), "edited", "")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	_, err = e.repo.Merge(e.ctx, "main", "f", tract.MergeOptions{})
	wantErr(t, err, tract.ErrConflict, "skip-vs-edit on "+x.Short())
}

// testMergeSameEditSkip: both sides make the same edit of X and one side
// then skips X. The edit is no disagreement, so the skip is the only change
// and the merge is clean whichever way it goes (it used to be clean one way
// and skip-vs-edit the other); X stays skipped.
func testMergeSameEditSkip(t *testing.T, newStore Factory) {
	for _, into := range []string{"main", "f"} {
		e := setup(t, newStore)
		x := e.user("main", "orig")
		e.user("main", "keep")
		_, err := e.repo.CreateBranch(e.ctx, "main", "f", "")
		e.must(err)
		_, err = e.repo.Edit(e.ctx, "main", string(x), "same", "")
		e.must(err)
		_, err = e.repo.Annotate(e.ctx, "main", string(x), tract.Skip, "")
		e.must(err)
		e.must(e.repo.Switch(e.ctx, "main", "f"))
		_, err = e.repo.Edit(e.ctx, "main", string(x), "same", "")
		e.must(err)
		e.user("main", "side work")
		other := "f"
		if into == "f" {
			other = "main"
		} else {
			e.must(e.repo.Switch(e.ctx, "main", "main"))
		}
		res, err := e.repo.Merge(e.ctx, "main", other, tract.MergeOptions{})
		if err != nil || res.Kind != tract.MergeCommit {
			t.Fatalf("merge %s into %s: %+v %v", other, into, res, err)
		}
		equal(t, e.texts("main"), "user: keep\nuser: side work\n")
	}
}

// testMergeDeleteCurrent: merge --delete-branch of the current branch is
// refused before anything happens (it used to merge, then fail to delete).
func testMergeDeleteCurrent(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "one")
	head := e.head("main")
	_, err := e.repo.Merge(e.ctx, "main", "main", tract.MergeOptions{DeleteBranch: true, NoFF: true})
	wantValidation(t, err, "is the current branch")
	if e.head("main") != head {
		t.Fatal("a refused merge moved the branch")
	}
}

// hookStore runs hook once, just before the next Update: a writer that
// gets in between an operation's reads and its transaction.
type hookStore struct {
	tract.Store
	hook func()
}

func (h *hookStore) Update(ctx context.Context, fn func(tract.Tx) error) error {
	if f := h.hook; f != nil {
		h.hook = nil
		f()
	}
	return h.Store.Update(ctx, fn)
}

func testMergeBranchMoved(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "one")
	e.onBranch("f", func() {
		e.user("main", "two")
	})
	e.user("main", "three")
	hs := &hookStore{Store: e.store}
	racer := tract.New(hs, tract.Options{Now: e.clock.Now})
	hs.hook = func() { e.user("main", "sneaked in") }
	before := e.commitCount()
	_, err := racer.Merge(e.ctx, "main", "f", tract.MergeOptions{})
	wantErr(t, err, tract.ErrBranchMoved, "merge failed, nothing changed: branch moved")
	if e.commitCount() != before+1 {
		t.Fatal("failed merge stored commits")
	}
	equal(t, e.texts("main"), "user: one\nuser: three\nuser: sneaked in\n")
	// An append in the same situation retries on the new head.
	hs.hook = func() { e.user("main", "again") }
	_, err = racer.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "retried"}})
	e.must(err)
	equal(t, e.texts("main"), "user: one\nuser: three\nuser: sneaked in\nuser: again\nuser: retried\n")
}

func testCherryPick(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "one")
	_, err := e.repo.CreateBranch(e.ctx, "main", "f", "")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", "f"))
	p := e.user("main", "picked")
	e.must(e.repo.Switch(e.ctx, "main", "main"))
	c, err := e.repo.CherryPick(e.ctx, "main", "f")
	e.must(err)
	src, _ := e.store.Commit(e.ctx, p)
	if c.Content != src.Content || c.Hash == p {
		t.Fatalf("cherry-pick %+v", c)
	}
	equal(t, e.texts("main"), "user: one\nuser: picked\n")
}
