package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"MergeFromRange", testMergeFromRange},
		{"MergeFromFilters", testMergeFromFilters},
		{"MergeFromDryRun", testMergeFromDryRun},
	})
}

// selectFixture: main has an instruction and a question, spawns kid, which
// commits four messages (the second a user note, the third reasoning made
// visible, the last an answer); tag pick names the second.
func selectFixture(e *env) []tract.Hash {
	e.add("main", tract.TypeInstruction, "", "coordinate")
	e.user("main", "question")
	_, err := e.repo.Spawn(e.ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"})
	e.must(err)
	hs := []tract.Hash{
		e.add("kid", tract.TypeMessage, "assistant", "k1"),
		e.add("kid", tract.TypeMessage, "user", "k2 note"),
		e.add("kid", tract.TypeMessage, "assistant", "k3"),
		e.add("kid", tract.TypeMessage, "assistant", "k4 answer"),
	}
	_, err = e.repo.CreateTag(e.ctx, "kid", "pick", string(hs[1]))
	e.must(err)
	return hs
}

// testMergeFromRange: --range A..B takes A through B of the child's work,
// by reference (the merge's second parent is B), GC-safe, blamed on the
// child's commits; a later merge-from takes only what is newer.
func testMergeFromRange(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	hs := selectFixture(e)
	before := e.commitCount()
	res, err := e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{Range: string(hs[1]) + ".." + string(hs[2])})
	e.must(err)
	if e.commitCount() != before+1 || res.Selection == nil || res.Selection.From != hs[1] {
		t.Fatalf("merge stored %d commits, selection %+v", e.commitCount()-before, res.Selection)
	}
	m, err := e.store.Commit(e.ctx, res.Merge)
	e.must(err)
	if len(m.Parents) != 2 || m.Parents[1] != hs[2] {
		t.Fatalf("merge parents %v, want the range's end %s second", m.Parents, hs[2].Short())
	}
	equal(t, e.texts("main"), "system: coordinate\nuser: question\nuser: k2 note\nassistant: k3\n")
	blame, err := e.repo.Blame(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if blame[2].Commit != hs[1] || blame[3].Commit != hs[2] || blame[3].Tract != "kid" {
		t.Fatalf("blame: %+v", blame)
	}
	// GC keeps what the merge references even when the child is gone.
	e.must(e.repo.RemoveTract(e.ctx, "kid"))
	e.clock.Advance(30 * 24 * time.Hour)
	rep, err := e.repo.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	if !slices.Equal(rep.Removed, []tract.Hash{hs[3]}) {
		t.Fatalf("gc removed %v, want only the unmerged %s", rep.Removed, hs[3].Short())
	}
	equal(t, e.texts("main"), "system: coordinate\nuser: question\nuser: k2 note\nassistant: k3\n")

	// A later merge-from takes every child commit not merged yet: the
	// one the range left out (rendered with the later merge's block,
	// before it) and what is newer than the range's end.
	e2 := setup(t, newStore)
	hs = selectFixture(e2)
	_, err = e2.repo.MergeFromWith(e2.ctx, "kid", tract.MergeFromOptions{Range: string(hs[1]) + "..HEAD~1"})
	e2.must(err)
	e2.mergeFrom("kid")
	equal(t, e2.texts("main"), "system: coordinate\nuser: question\nuser: k2 note\nassistant: k3\nassistant: k1\nassistant: k4 answer\n")
	// Bad ranges: reversed, not on the child's history, unknown.
	for _, c := range []struct{ rng, want string }{
		{string(hs[2]) + ".." + string(hs[1]), "is not " + hs[1].Short() + " or one of its first parents"},
		{"HEAD", "want FROM..TO"},
	} {
		_, err := e2.repo.MergeFromWith(e2.ctx, "kid", tract.MergeFromOptions{Range: c.rng})
		wantValidation(t, err, c.want)
	}
	_, err = e2.repo.MergeFromWith(e2.ctx, "kid", tract.MergeFromOptions{Range: "HEAD~1..main:HEAD"})
	wantValidation(t, err, "is not on kid's first-parent history")
}

// testMergeFromFilters: --type, --role and tags keep only the child
// commits they name; the selection is recorded in the merge's metadata.
func testMergeFromFilters(t *testing.T, newStore Factory) {
	for _, c := range []struct {
		name string
		o    tract.MergeFromOptions
		want string
	}{
		{"role", tract.MergeFromOptions{Roles: []string{"assistant"}}, "assistant: k1\nassistant: k3\nassistant: k4 answer\n"},
		{"tag", tract.MergeFromOptions{Tags: []string{"pick"}}, "user: k2 note\n"},
		{"type", tract.MergeFromOptions{Types: []tract.Type{tract.TypeToolCall}, AllowEmpty: true}, ""},
		{"range and role", tract.MergeFromOptions{Range: "HEAD~2..HEAD", Roles: []string{"assistant"}}, "assistant: k3\nassistant: k4 answer\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := setup(t, newStore)
			selectFixture(e)
			res, err := e.repo.MergeFromWith(e.ctx, "kid", c.o)
			e.must(err)
			equal(t, e.texts("main"), "system: coordinate\nuser: question\n"+c.want)
			sh, err := e.repo.Show(e.ctx, "main", string(res.Merge))
			e.must(err)
			if len(sh.Commit.Meta) == 0 || !slices.Contains([]byte(sh.Commit.Meta), '{') {
				t.Fatalf("merge metadata %s", sh.Commit.Meta)
			}
		})
	}
	e := setup(t, newStore)
	selectFixture(e)
	// A selection that takes nothing is refused, and stores nothing.
	before := e.commitCount()
	_, err := e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{Types: []tract.Type{tract.TypeToolCall}})
	var ns *tract.NothingSelectedError
	if !errors.As(err, &ns) || ns.Offered != 4 || e.commitCount() != before {
		t.Fatalf("empty selection: %v (%d commits stored)", err, e.commitCount()-before)
	}
	wantValidation(t, err, "nothing selected")
	_, err = e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{Tags: []string{"nope"}})
	wantErr(t, err, tract.ErrNotFound, "nope")
	_, err = e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{Roles: []string{"wizard"}})
	wantValidation(t, err, "wizard")
	_, err = e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{Types: []tract.Type{"bogus"}})
	wantValidation(t, err, "bogus")
}

// testMergeFromDryRun: a dry run lists the messages a merge would add with
// their tokens and the total after, and stores nothing.
func testMergeFromDryRun(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	selectFixture(e)
	head := e.head("main")
	o := tract.MergeFromOptions{Roles: []string{"assistant"}, DryRun: true}
	dry, err := e.repo.MergeFromWith(e.ctx, "kid", o)
	e.must(err)
	if e.head("main") != head || dry.Merge != "" || !dry.DryRun {
		t.Fatalf("dry run stored something: %+v", dry)
	}
	var texts []string
	sum := 0
	for _, m := range dry.Messages {
		texts = append(texts, m.Content)
		sum += m.Tokens
	}
	if !slices.Equal(texts, []string{"k1", "k3", "k4 answer"}) || dry.TokensAfter != dry.TokensBefore+sum {
		t.Fatalf("dry run: %v, %d → %d tokens (messages %d)", texts, dry.TokensBefore, dry.TokensAfter, sum)
	}
	o.DryRun = false
	_, err = e.repo.MergeFromWith(e.ctx, "kid", o)
	e.must(err)
	if got := e.compile("main", tract.CompileOptions{}); got.Tokens != dry.TokensAfter {
		t.Fatalf("after the merge %d tokens, the dry run said %d", got.Tokens, dry.TokensAfter)
	}
	// Status names the child while the selection left something out.
	st, err := e.repo.Status(e.ctx, "main")
	e.must(err)
	if len(st.Children) != 1 || st.Children[0].Name != "kid" || st.Children[0].Unmerged != 1 {
		t.Fatalf("status children after a selective merge: %+v", st.Children)
	}
	// What the selection left out is offered again.
	again, err := e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{DryRun: true})
	e.must(err)
	if again.Kind != tract.MergeCommit || len(again.Messages) != 1 || again.Messages[0].Content != "k2 note" || again.TokensBefore != dry.TokensAfter {
		t.Fatalf("dry run after the merge: %+v", again)
	}
	e.mergeFrom("kid")
	if st, err = e.repo.Status(e.ctx, "main"); err != nil || len(st.Children) != 0 {
		t.Fatalf("status children after the last merge: %+v %v", st.Children, err)
	}
	// Up to date: the dry run reports the context's real tokens.
	up, err := e.repo.MergeFromWith(e.ctx, "kid", tract.MergeFromOptions{DryRun: true})
	e.must(err)
	tokens := e.compile("main", tract.CompileOptions{}).Tokens
	if up.Kind != tract.MergeUpToDate || up.TokensBefore != tokens || up.TokensAfter != tokens || tokens == 0 {
		t.Fatalf("dry run when up to date: %+v, the context has %d tokens", up, tokens)
	}
}
