package storetest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{{"AnnotationsOfCommits", testAnnotationsOfCommits}, {"RelationsInTwoQueries", testRelations}})
}

// testAnnotationsOfCommits: AnnotationQuery.Commits selects the
// annotations of those commits only, none when empty.
func testAnnotationsOfCommits(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a, b, c := e.user("main", "a"), e.user("main", "b"), e.user("main", "c")
	for _, h := range []tract.Hash{a, b, c, a} {
		_, err := e.repo.Annotate(e.ctx, "main", string(h), tract.Skip, "")
		e.must(err)
	}
	anns, err := e.store.Annotations(e.ctx, tract.AnnotationQuery{Commits: []tract.Hash{a, c}})
	e.must(err)
	var got []tract.Hash
	for _, x := range anns {
		got = append(got, x.Commit)
	}
	if want := []tract.Hash{a, c, a}; !equalHashes(got, want) {
		t.Fatalf("annotations of a and c: %v, want %v (by seq)", got, want)
	}
	anns, err = e.store.Annotations(e.ctx, tract.AnnotationQuery{Commits: []tract.Hash{}})
	e.must(err)
	if len(anns) != 0 {
		t.Fatalf("annotations of no commit: %v", anns)
	}
}

func equalHashes(a, b []tract.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// queryCounting counts the annotation and blob reads of a store.
type queryCounting struct {
	tract.Store
	n *atomic.Int64
}

func (s queryCounting) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	s.n.Add(1)
	return s.Store.Annotations(ctx, q)
}

func (s queryCounting) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	s.n.Add(1)
	return s.Store.Blobs(ctx, hashes, encoding)
}

// testRelations: a window's relations (skips, where summaries start) take
// two queries however many rows and compress commits it holds, and say
// what the commits do.
func testRelations(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.importNumbered(30)
	log, err := e.repo.Log(e.ctx, "main", tract.LogOptions{})
	e.must(err)
	oldest := func(k int) tract.Hash { return log[len(log)-1-k].Hash }
	for _, k := range []int{2, 3} {
		_, err := e.repo.Annotate(e.ctx, "main", string(oldest(k)), tract.Skip, "")
		e.must(err)
	}
	_, err = e.repo.Annotate(e.ctx, "main", string(oldest(3)), tract.Important, "")
	e.must(err)
	for _, rng := range [][2]int{{5, 8}, {10, 12}, {20, 25}} {
		_, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: string(oldest(rng[0])) + ".." + string(oldest(rng[1])), Summary: "summary"})
		e.must(err)
	}
	log, err = e.repo.Log(e.ctx, "main", tract.LogOptions{})
	e.must(err)
	var n atomic.Int64
	r := tract.New(queryCounting{e.store, &n}, tract.Options{Now: e.clock.Now})
	main, err := e.store.Tract(e.ctx, "main")
	e.must(err)
	rel, err := r.Relations(e.ctx, main.ID, log)
	e.must(err)
	if got := n.Load(); got != 2 {
		t.Fatalf("relations of %d entries took %d queries, want 2", len(log), got)
	}
	if rel.Newest[oldest(2)].Priority != tract.Skip || rel.Newest[oldest(3)].Priority != tract.Important || len(rel.Newest) != 2 {
		t.Fatalf("newest annotations %v: want skip on the 3rd commit, important on the 4th", rel.Newest)
	}
	var froms []tract.Hash
	for _, en := range log {
		if en.Operation == tract.OpCompress {
			froms = append(froms, rel.From[en.Hash])
		}
	}
	if want := []tract.Hash{oldest(20), oldest(10), oldest(5)}; !equalHashes(froms, want) {
		t.Fatalf("summaries start at %v, want %v", froms, want)
	}
	n.Store(0)
	if _, err := r.Relations(e.ctx, main.ID, log[:0]); err != nil || n.Load() != 0 {
		t.Fatalf("relations of no entry: %v, %d queries", err, n.Load())
	}
}
