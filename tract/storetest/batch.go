package storetest

import (
	"errors"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"WriteBatchIsImportAppendToAndMeta", testWriteBatch},
		{"WriteBatchAllOrNothing", testWriteBatchAtomic},
	})
}

func batchRequests(texts ...string) []tract.CommitRequest {
	var out []tract.CommitRequest
	for _, s := range texts {
		out = append(out, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: s}, Message: "m " + s, Meta: []byte(`{"k":"` + s + `"}`)})
	}
	return out
}

// testWriteBatch: one batch writes the commits Import would on HEAD
// (the same hashes under the same clock), the chain AppendTo would on
// the side branch, and the metadata its Meta gives, which sees the
// commits.
func testWriteBatch(t *testing.T, newStore Factory) {
	a, b := setup(t, newStore), setup(t, newStore)
	for _, e := range []*env{a, b} {
		e.user("main", "before")
		_, err := e.repo.NewTract(e.ctx, "index")
		e.must(err)
	}
	want, err := a.repo.Import(a.ctx, "main", batchRequests("one", "two", "three"))
	a.must(err)
	wantAside, err := a.repo.AppendTo(a.ctx, "main", "meta", batchRequests("x", "y"))
	a.must(err)

	var seen []tract.Commit
	head, aside, err := b.repo.WriteBatch(b.ctx, "main", tract.Batch{
		Head: batchRequests("one", "two", "three"), Branch: "meta", Aside: batchRequests("x", "y"),
		MetaTracts: []string{"index", "main"},
		Meta: func(head, aside []tract.Commit) map[string]map[string]string {
			seen = append(head, aside...)
			return map[string]map[string]string{"index": {"last": string(head[len(head)-1].Hash)}, "main": {"title": "t"}}
		},
	})
	b.must(err)
	if len(head) != 3 || len(aside) != 2 || len(seen) != 5 {
		t.Fatalf("wrote %d and %d commits, Meta saw %d; want 3, 2, 5", len(head), len(aside), len(seen))
	}
	for i := range want {
		if head[i].Hash != want[i].Hash {
			t.Errorf("head commit %d is %s, Import wrote %s", i, head[i].Hash, want[i].Hash)
		}
	}
	if b.head("main") != head[2].Hash {
		t.Errorf("main is at %s, want %s", b.head("main"), head[2].Hash)
	}
	if len(aside[0].Parents) != 0 || aside[1].Parents[0] != aside[0].Hash {
		t.Errorf("the side branch is not a chain from a root: %+v", aside)
	}
	for i := range wantAside {
		if aside[i].Content != wantAside[i].Content || string(aside[i].Meta) != string(wantAside[i].Meta) || aside[i].Message != wantAside[i].Message {
			t.Errorf("side commit %d = %+v, AppendTo wrote %+v", i, aside[i], wantAside[i])
		}
	}
	if ref, err := b.store.Ref(b.ctx, mustTract(b, "main").ID, "meta"); err != nil || ref.Value != string(aside[1].Hash) {
		t.Errorf("branch meta is at %q (%v), want %s", ref.Value, err, aside[1].Hash)
	}
	meta, err := b.repo.TractMeta(b.ctx, "index")
	b.must(err)
	if len(meta) != 1 || meta[0].Key != "last" || meta[0].Value != string(head[2].Hash) {
		t.Errorf("index metadata %+v, want last = %s", meta, head[2].Hash)
	}
}

// testWriteBatchAllOrNothing: a batch that fails writes nothing: not its
// commits, not its branch, not its metadata.
func testWriteBatchAtomic(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	before := e.user("main", "before")
	check := func(what string) {
		t.Helper()
		if got := e.head("main"); got != before {
			t.Errorf("%s: main moved to %s", what, got)
		}
		if _, err := e.store.Ref(e.ctx, mustTract(e, "main").ID, "meta"); !errors.Is(err, tract.ErrNotFound) {
			t.Errorf("%s: branch meta exists (%v)", what, err)
		}
		if meta, err := e.repo.TractMeta(e.ctx, "main"); err != nil || len(meta) != 0 {
			t.Errorf("%s: metadata %+v, %v", what, meta, err)
		}
	}
	b := tract.Batch{Head: batchRequests("one"), Branch: "meta", Aside: batchRequests("x"), MetaTracts: []string{"nosuch"}}
	if _, _, err := e.repo.WriteBatch(e.ctx, "main", b); !errors.Is(err, tract.ErrNotFound) {
		t.Errorf("a batch naming a missing tract: %v, want ErrNotFound", err)
	}
	check("missing tract")
	b.MetaTracts = []string{"main"}
	b.Meta = func(head, aside []tract.Commit) map[string]map[string]string {
		return map[string]map[string]string{"main": {"title": "t", "bad key": "v"}}
	}
	if _, _, err := e.repo.WriteBatch(e.ctx, "main", b); err == nil {
		t.Error("a batch setting an invalid metadata key succeeded")
	}
	check("invalid key")
	b.Meta = nil
	b.Head = append(batchRequests("ok"), tract.CommitRequest{Content: tract.Content{Type: "nosuch", Text: "x"}})
	if _, _, err := e.repo.WriteBatch(e.ctx, "main", b); err == nil || err.Error()[:10] != "message 2:" {
		t.Errorf("a batch with an invalid request: %v, want it named message 2", err)
	}
	check("invalid request")
}
