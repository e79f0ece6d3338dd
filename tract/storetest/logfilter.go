package storetest

import (
	"strings"
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
	g := tract.Graph(log)
	if strings.Count(g, "\n") != 2 || strings.Contains(g, "|") {
		t.Fatalf("graph of a filtered linear history:\n%s", g)
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
	if g := tract.Graph(log); strings.Count(g, "*") != 2 || strings.Contains(g, "\\") {
		t.Fatalf("graph of the assistant messages (k1 on the merged side, a1 below it):\n%s", g)
	}
	_, err = e.repo.Log(e.ctx, "main", tract.LogOptions{Operation: "squash"})
	wantValidation(t, err, "want append, edit, merge or compress")
}
