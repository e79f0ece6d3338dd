package storetest

import (
	"slices"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"LogFilterGraphAndOperation", testLogFilterGraph},
	})
}

// testLogFilterGraph: a filtered log draws the history simplified to what
// it lists (a linear history stays one lane), and --operation keeps the
// commits of one operation.
func testLogFilterGraph(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "u1")
	e.add("main", tract.TypeMessage, "assistant", "a1")
	e.user("main", "u2")
	log, err := e.repo.Log(e.ctx, "main", tract.LogOptions{Role: "user"})
	e.must(err)
	if len(log) != 2 || !slices.Equal(graphParents(log[0]), []tract.Hash{log[1].Hash}) || len(graphParents(log[1])) != 0 {
		t.Fatalf("a filtered linear history is not one line (u2 over u1): %+v", log)
	}
	e.delegate("main", "kid", tract.SpawnReference, "k1")
	e.mergeFrom("kid")
	e.user("main", "u3")
	log, err = e.repo.Log(e.ctx, "main", tract.LogOptions{Operation: tract.OpMerge})
	e.must(err)
	if len(log) != 1 || log[0].Message != "merge-from kid" {
		t.Fatalf("log --operation merge: %+v", log)
	}
	log, err = e.repo.Log(e.ctx, "main", tract.LogOptions{Role: "assistant"})
	e.must(err)
	if len(log) != 2 || len(graphParents(log[0])) > 1 || len(graphParents(log[1])) > 1 {
		t.Fatalf("graph of the assistant messages (k1 on the merged side, a1 below it) opens a side line: %+v", log)
	}
	_, err = e.repo.Log(e.ctx, "main", tract.LogOptions{Operation: "squash"})
	wantValidation(t, err, "want append, edit, merge or compress")
}

// graphParents are what a drawn graph joins e to: its GraphParents in a
// filtered log, else its parents.
func graphParents(e tract.LogEntry) []tract.Hash {
	if e.GraphParents != nil {
		return e.GraphParents
	}
	return e.Parents
}
