package storetest

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

func init() {
	suites = append(suites, []testCase{
		{"CompressReplacesRange", testCompressReplacesRange},
		{"CompressSkipRestores", testCompressSkipRestores},
		{"CompressBadRanges", testCompressBadRanges},
		{"CompressPlanFits", testCompressPlanFits},
		{"CompressNestedAndMerged", testCompressNested},
		{"DiffAndStatus", testDiffAndStatus},
		{"Settings", testSettings},
	})
}

// compressFixture commits an instruction, five messages (the third pinned)
// and returns their hashes, oldest first.
func compressFixture(e *env) []tract.Hash {
	hs := []tract.Hash{e.add("main", tract.TypeInstruction, "", "Be brief.")}
	for i, text := range []string{"first question", "first answer", "keep this fact", "second answer", "latest question"} {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		hs = append(hs, e.add("main", tract.TypeMessage, role, text))
	}
	_, err := e.repo.Annotate(e.ctx, "main", string(hs[3]), tract.Pinned, "")
	e.must(err)
	return hs
}

// testCompressReplacesRange: the compile with a summary equals the compile
// of a hand-built context with the range replaced (pinned messages kept),
// and blame maps the summary to the originals.
func testCompressReplacesRange(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	hs := compressFixture(e)
	rng := string(hs[1]) + ".." + string(hs[4])
	dry, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng, Summary: "We talked about tracts.", DryRun: true})
	e.must(err)
	if h := e.head("main"); h != hs[5] || dry.Commit != "" {
		t.Fatalf("dry run stored something: head %s, commit %q", h.Short(), dry.Commit)
	}
	res, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng, Summary: "We talked about tracts."})
	e.must(err)
	if want := []tract.Hash{hs[1], hs[2], hs[4]}; !slices.Equal(res.Replaced, want) || !slices.Equal(res.Kept, []tract.Hash{hs[3]}) {
		t.Fatalf("replaced %v kept %v, want %v and [%s]", res.Replaced, res.Kept, want, hs[3])
	}
	got := e.compile("main", tract.CompileOptions{})
	if got.Tokens != res.TokensAfter || dry.TokensAfter != res.TokensAfter || res.TokensAfter >= res.TokensBefore {
		t.Fatalf("tokens: compile %d, reported %d → %d, dry run %d", got.Tokens, res.TokensBefore, res.TokensAfter, dry.TokensAfter)
	}

	_, err = e.repo.NewTract(e.ctx, "hand")
	e.must(err)
	e.add("hand", tract.TypeInstruction, "", "Be brief.")
	e.add("hand", tract.TypeMessage, "user", "keep this fact")
	e.add("hand", tract.TypeMessage, "user", "We talked about tracts.")
	e.add("hand", tract.TypeMessage, "user", "latest question")
	want := e.compile("hand", tract.CompileOptions{})
	if !reflect.DeepEqual(wire.OpenAI(got.Messages), wire.OpenAI(want.Messages)) || got.Tokens != want.Tokens {
		t.Fatalf("compile with summary:\n%s(%d tokens)\nhand-built:\n%s(%d tokens)", texts(got), got.Tokens, texts(want), want.Tokens)
	}
	for _, budget := range []int{0, 40} {
		o := tract.CompileOptions{Budget: budget}
		a, aerr := e.repo.Compile(e.ctx, "main", o)
		b, berr := e.repo.Compile(e.ctx, "hand", o)
		if (aerr == nil) != (berr == nil) || (aerr == nil && (texts(a) != texts(b) || a.Tokens != b.Tokens)) {
			t.Fatalf("budget %d: summary compile %q %v, hand-built %q %v", budget, texts(a), aerr, texts(b), berr)
		}
	}

	blame, err := e.repo.Blame(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if len(blame) != 4 || blame[2].Commit != res.Commit || !slices.Equal(blame[2].Summarizes, res.Replaced) || blame[2].Type != tract.TypeSummary {
		t.Fatalf("blame: %+v", blame)
	}
	if _, err := e.repo.Edit(e.ctx, "main", string(res.Commit), "other", ""); err == nil {
		t.Fatal("editing a summary succeeded")
	}
}

// testCompressSkipRestores: annotating the summary skip gives back the
// compile from before the compress, and GC keeps the originals.
func testCompressSkipRestores(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	hs := compressFixture(e)
	before := e.compile("main", tract.CompileOptions{})
	res, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: string(hs[0]) + ".." + string(hs[5]), Summary: "all of it", Role: "assistant"})
	e.must(err)
	if got := texts(e.compile("main", tract.CompileOptions{})); got != "system: Be brief.\nuser: keep this fact\nassistant: all of it\n" {
		t.Fatalf("compressed compile:\n%s", got)
	}
	// The summary is the head; move the branch on so GC has a reason to look.
	e.user("main", "after")
	e.clock.Advance(30 * 24 * 3600e9)
	rep, err := e.repo.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	if len(rep.Removed) != 0 {
		t.Fatalf("gc removed %v", rep.Removed)
	}
	_, err = e.repo.Annotate(e.ctx, "main", string(res.Commit), tract.Skip, "")
	e.must(err)
	after := e.compile("main", tract.CompileOptions{})
	if len(after.Messages) != len(before.Messages)+1 {
		t.Fatalf("after skip:\n%s", texts(after))
	}
	if !reflect.DeepEqual(after.Messages[:len(before.Messages)], before.Messages) {
		t.Fatalf("skipping the summary does not restore the compile:\nbefore:\n%s\nafter:\n%s", texts(before), texts(after))
	}
	rep2, err := e.repo.Verify(e.ctx)
	e.must(err)
	if len(rep2.Damage) != 0 {
		t.Fatalf("verify: %+v", rep2.Damage)
	}
}

func testCompressBadRanges(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	hs := compressFixture(e)
	e.onBranch("side", func() { e.user("main", "on side") })
	side, err := e.repo.Resolve(e.ctx, mustTract(e, "main"), "side")
	e.must(err)
	for _, c := range []struct{ rng, want string }{
		{string(hs[4]) + ".." + string(hs[1]), "is not " + hs[1].Short() + " or one of its first parents"},
		{string(hs[1]) + ".." + string(side), side.Short() + " is not on the current branch's first-parent history"},
		{"HEAD", "want FROM..TO"},
		{"..HEAD", "want FROM..TO"},
		{string(hs[3]) + ".." + string(hs[3]), "compiles to no message a summary could replace"},
	} {
		_, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: c.rng, Summary: "s"})
		wantValidation(t, err, c.want)
	}
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: "HEAD~1..HEAD", Summary: "  "})
	wantValidation(t, err, "summary")
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: "ffff..HEAD", Summary: "s"})
	wantErr(t, err, tract.ErrNotFound, "ffff")
	_, err = e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeSummary, Text: "x"}})
	wantValidation(t, err, "tract compress")
	if h := e.head("main"); h != hs[5] {
		t.Fatalf("a failed compress moved the head to %s", h.Short())
	}
}

// testCompressPlanFits: the planned range, compressed with a summary within
// the plan's limit, brings the context under the budget.
func testCompressPlanFits(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "Be brief.")
	for i := 0; i < 12; i++ {
		e.user("main", "message number with several words in it")
	}
	full := e.compile("main", tract.CompileOptions{})
	_, err := e.repo.PlanCompress(e.ctx, "main", tract.PlanOptions{})
	wantErr(t, err, tract.ErrNoBudget, "no budget")
	_, err = e.repo.SetConfig(e.ctx, "main", "budget", "80")
	e.must(err)
	plan, err := e.repo.PlanCompress(e.ctx, "main", tract.PlanOptions{})
	e.must(err)
	if plan.Budget != 80 || !plan.Fits || len(plan.Ranges) != 1 || plan.Tokens != full.Tokens {
		t.Fatalf("plan: %+v", plan)
	}
	pr := plan.Ranges[0]
	if pr.Messages[0].Commit != full.Messages[1].Commit || len(pr.Messages) >= 12 || pr.MaxSummaryTokens < 8 {
		t.Fatalf("plan range %s: %d messages, max summary %d", pr.Range, len(pr.Messages), pr.MaxSummaryTokens)
	}
	res, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: pr.Range, Summary: "Twelve short messages."})
	e.must(err)
	if got := e.compile("main", tract.CompileOptions{}); got.Tokens > 80 || got.Tokens != res.TokensAfter || len(res.Replaced) != len(pr.Messages) {
		t.Fatalf("after the planned compress: %d tokens (reported %d), replaced %d of %d", got.Tokens, res.TokensAfter, len(res.Replaced), len(pr.Messages))
	}
	again, err := e.repo.PlanCompress(e.ctx, "main", tract.PlanOptions{})
	e.must(err)
	if len(again.Ranges) != 0 || !again.Fits {
		t.Fatalf("a fitting context still plans %+v", again)
	}
	tight, err := e.repo.PlanCompress(e.ctx, "main", tract.PlanOptions{Budget: 5})
	e.must(err)
	if tight.Fits {
		t.Fatalf("a budget below the pinned instruction fits: %+v", tight)
	}
}

// testCompressNested: a second summary over a range holding the first
// replaces it too; a merged child's block inside a range is covered; the
// parent's own messages before the merge are not hidden by a child's
// summary of its own work.
func testCompressNested(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "a")
	e.user("main", "b")
	c1, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: string(a) + "..HEAD", Summary: "S1"})
	e.must(err)
	e.user("main", "c")
	_, err = e.repo.Spawn(e.ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"})
	e.must(err)
	k1 := e.user("kid", "k1")
	e.user("kid", "k2")
	_, err = e.repo.Compress(e.ctx, "kid", tract.CompressOptions{Range: string(k1) + "..HEAD", Summary: "K"})
	e.must(err)
	e.user("main", "parent after spawn")
	_, err = e.repo.MergeFrom(e.ctx, "kid", "")
	e.must(err)
	equal(t, e.texts("main"), "user: S1\nuser: c\nuser: parent after spawn\nuser: K\n")
	equal(t, e.texts("kid"), "user: S1\nuser: c\nuser: K\n")
	e.user("main", "d")
	c2, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: string(a) + "..HEAD~1", Summary: "S2"})
	e.must(err)
	equal(t, e.texts("main"), "user: S2\nuser: d\n")
	blame, err := e.repo.Blame(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if blame[0].Commit != c2.Commit || !slices.Contains(blame[0].Summarizes, c1.Commit) {
		t.Fatalf("blame of the nested summary: %+v", blame[0])
	}
}

func testDiffAndStatus(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	hs := compressFixture(e)
	_, err := e.repo.Edit(e.ctx, "main", string(hs[5]), "latest question, edited", "")
	e.must(err)
	_, err = e.repo.Annotate(e.ctx, "main", string(hs[4]), tract.Important, "")
	e.must(err)
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: string(hs[1]) + ".." + string(hs[2]), Summary: "S"})
	e.must(err)
	d, err := e.repo.Diff(e.ctx, "main", string(hs[5]), "HEAD", "")
	e.must(err)
	var kinds []string
	for _, c := range d.Changes {
		kinds = append(kinds, c.Kind+" "+c.Commit.Short())
	}
	// Annotations are not versioned: hs[4]'s priority is the same on both sides.
	want := []string{"removed " + hs[1].Short(), "removed " + hs[2].Short(), "added " + d.Changes[2].Commit.Short(), "edited " + hs[5].Short()}
	if !slices.Equal(kinds, want) || d.Changes[3].Before != "latest question" || d.From.Messages != 6 || d.To.Messages != 5 {
		t.Fatalf("diff: %v (want %v) %+v", kinds, want, d)
	}
	e.onBranch("side", func() { e.user("main", "s1"); e.user("main", "s2") })
	e.user("main", "m1")
	_, err = e.repo.Spawn(e.ctx, "main", "kid", tract.SpawnOptions{Purpose: "research"})
	e.must(err)
	_, err = e.repo.Spawn(e.ctx, "main", "idle", tract.SpawnOptions{Purpose: "nothing yet"})
	e.must(err)
	e.user("kid", "found it")
	_, err = e.repo.SetConfig(e.ctx, "main", "budget", "20")
	e.must(err)
	st, err := e.repo.Status(e.ctx, "main")
	e.must(err)
	if st.Branch != "main" || st.Budget == nil || *st.Budget != 20 || !st.Over || st.Tokens != e.compile("main", tract.CompileOptions{}).Tokens {
		t.Fatalf("status: %+v", st)
	}
	if len(st.Children) != 1 || st.Children[0].Name != "kid" || len(st.Branches) != 1 || st.Branches[0] != (tract.BranchStatus{Name: "side", Head: st.Branches[0].Head, Ahead: 2, Behind: 1}) {
		t.Fatalf("status children %+v branches %+v", st.Children, st.Branches)
	}
	_, err = e.repo.MergeFrom(e.ctx, "kid", "")
	e.must(err)
	st, err = e.repo.Status(e.ctx, "main")
	e.must(err)
	if len(st.Children) != 0 || st.Branches[0].Behind != 3 {
		t.Fatalf("after merge-from: children %+v branches %+v", st.Children, st.Branches)
	}
}

func testSettings(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	for _, bad := range []string{"0", "-3", "many"} {
		_, err := e.repo.SetConfig(e.ctx, "main", "budget", bad)
		wantValidation(t, err, "want a positive number")
	}
	_, err := e.repo.SetConfig(e.ctx, "main", "colour", "red")
	wantValidation(t, err, "unknown")
	cfg, err := e.repo.SetConfig(e.ctx, "main", "budget", "0100")
	e.must(err)
	if cfg.Budget != 100 {
		t.Fatalf("budget %d", cfg.Budget)
	}
	st, err := e.store.Settings(e.ctx, mustTract(e, "main").ID)
	e.must(err)
	if len(st) != 1 || st[0].Value != "100" {
		t.Fatalf("settings %+v", st)
	}
	cfg, err = e.repo.SetConfig(e.ctx, "main", "budget", "none")
	e.must(err)
	if cfg.Budget != 0 {
		t.Fatalf("budget after none: %d", cfg.Budget)
	}
}

func mustTract(e *env, name string) tract.Tract {
	e.t.Helper()
	t, err := e.repo.Tract(e.ctx, name)
	e.must(err)
	return t
}
