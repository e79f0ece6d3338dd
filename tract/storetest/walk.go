package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"WalkPointers", testWalkPointers},
	})
}

// testWalkPointers checks a PointerWalker against Commit reads: every
// walk ends where following the same pointers commit by commit ends, with
// that commit's position, and stops at a pointer a commit lacks.
func testWalkPointers(t *testing.T, newStore Factory) {
	ctx := context.Background()
	s := newStore(t)
	pw, ok := s.(tract.PointerWalker)
	if !ok {
		t.Skip("the store walks no pointers")
	}
	r := tract.New(s, tract.Options{Now: newClock().Now})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, 100)
	for i := range reqs {
		reqs[i] = message("user", fmt.Sprint("message ", i))
	}
	res, err := r.Import(ctx, "main", reqs)
	if err != nil {
		t.Fatal(err)
	}
	head := res[len(res)-1].Hash
	follow := func(from tract.Hash, steps string) (tract.Hash, tract.Position, int) {
		return followByCommits(t, s, from, steps)
	}
	root, _, _ := follow(head, strings.Repeat("p", 99))
	for _, tc := range []struct{ from, steps string }{
		{"head", ""}, {"head", "p"}, {"head", "ppp"}, {"head", "j"}, {"head", "jjj"},
		{"head", "jpjpjj"}, {"head", "pjpppjjj"}, {"head", "jjjjjjjjjjjjjjjjjjjjjjjj"},
		{"head", strings.Repeat("p", 120)},
		{"root", ""}, {"root", "p"}, {"root", "j"},
	} {
		from := head
		if tc.from == "root" {
			from = root
		}
		at, pos, taken, err := pw.WalkPointers(ctx, from, tc.steps)
		if err != nil {
			t.Fatalf("%s %q: %v", tc.from, tc.steps, err)
		}
		wantAt, wantPos, wantTaken := follow(from, tc.steps)
		if at != wantAt || pos != wantPos || taken != wantTaken {
			t.Errorf("walk from %s by %q = %s %+v after %d steps, want %s %+v after %d", tc.from, tc.steps, at.Short(), pos, taken, wantAt.Short(), wantPos, wantTaken)
		}
		if !pos.Known() {
			t.Errorf("walk from %s by %q: position not known", tc.from, tc.steps)
		}
	}
	missing := tract.Hash("00000000000000000000000000000000000000000000000000000000000000ff")
	if _, _, _, err := pw.WalkPointers(ctx, missing, "p"); !errors.Is(err, tract.ErrNotFound) {
		t.Errorf("walk from a commit not stored: %v, want ErrNotFound", err)
	}
	main, err := r.Tract(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	// HEAD~N through the walk: the same commits as N first parents.
	for _, n := range []int{1, 2, 7, 50, 98, 99} {
		got, err := r.Resolve(ctx, main, fmt.Sprintf("HEAD~%d", n))
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := follow(head, strings.Repeat("p", n))
		if got != want {
			t.Errorf("HEAD~%d = %s, want %s", n, got.Short(), want.Short())
		}
	}
	if _, err := r.Resolve(ctx, main, "HEAD~100"); !errors.Is(err, tract.ErrNotFound) {
		t.Errorf("HEAD~100 of 100 commits: %v, want ErrNotFound", err)
	}
}

// followByCommits is a pointer walk made of Commit reads: the commit
// reached, its position and the steps taken.
func followByCommits(t *testing.T, s tract.Store, from tract.Hash, steps string) (tract.Hash, tract.Position, int) {
	t.Helper()
	ctx := context.Background()
	c, err := s.Commit(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(steps); i++ {
		next := c.Pos.Jump
		if steps[i] == 'p' {
			next = ""
			if len(c.Parents) > 0 {
				next = c.Parents[0]
			}
		}
		if next == "" {
			return c.Hash, c.Pos, i
		}
		if c, err = s.Commit(ctx, next); err != nil {
			t.Fatal(err)
		}
	}
	return c.Hash, c.Pos, len(steps)
}
