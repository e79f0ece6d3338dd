package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{{"FindManyMatches", testFindManyMatches}})
}

// testFindManyMatches: a word in thousands of commits (more than a store
// may start from its index's matches) and one in two give, with and
// without -n and filters, what the whole match list sorted by time then
// hash gives — also when many commits share a time (one import) and other
// tracts hold the word too.
func testFindManyMatches(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	const n = 2600
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		role := "user"
		if i%3 == 0 {
			role = "assistant"
		}
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role, Text: fmt.Sprintf("common report %d", i)}}
	}
	_, err := e.repo.Import(e.ctx, "main", reqs[:n/2]) // one time for all
	e.must(err)
	for _, r := range reqs[n/2 : n/2+20] { // a time each
		_, err := e.repo.Commit(e.ctx, "main", r)
		e.must(err)
	}
	_, err = e.repo.Import(e.ctx, "main", reqs[n/2+20:])
	e.must(err)
	_, err = e.repo.NewTract(e.ctx, "other")
	e.must(err)
	_, err = e.repo.Import(e.ctx, "other", reqs[:100])
	e.must(err)

	for _, o := range []tract.FindOptions{
		{Text: "common"}, {Text: "common report"}, {Text: "report", Role: "assistant"}, {Text: "common", AllTracts: true},
		{Text: "1234"}, {Text: "common 77"}, {Text: "77", AllTracts: true},
	} {
		all := e.find("main", o)
		sorted := slices.Clone(all)
		if len(all) == 0 {
			t.Fatalf("find %+v: nothing", o)
		}
		for _, limit := range []int{1, 5, 40, len(all) + 3} {
			lo := o
			lo.Limit = limit
			got := e.find("main", lo)
			if want := sorted[:min(limit, len(sorted))]; !slices.Equal(got, want) {
				t.Fatalf("find %+v: %d hits, want the first %d of the %d without a limit", lo, len(got), len(want), len(all))
			}
		}
	}
	if got := len(e.find("main", tract.FindOptions{Text: "common"})); got != n {
		t.Fatalf("find common: %d hits, want %d", got, n)
	}
}
