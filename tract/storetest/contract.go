package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append([][]testCase{{
		{"StoreTracts", testStoreTracts},
		{"StoreBlobs", testStoreBlobs},
		{"StoreBlobsPutWithCounts", testStoreBlobCounts},
		{"StoreCommits", testStoreCommits},
		{"StoreRefsCompareAndSwap", testStoreRefs},
		{"StoreFailedUpdateWritesNothing", testStoreRollback},
		{"StoreAncestryCrossTract", testStoreAncestry},
		{"StoreAnnotations", testStoreAnnotations},
		{"StoreDeletes", testStoreDeletes},
		{"StoreParentReadThenDeleted", testStoreParentReadThenDeleted},
	}}, suites...)
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)

func update(t *testing.T, s tract.Store, fn func(tx tract.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// raw builds and stores a commit with a fresh blob.
func raw(t *testing.T, s tract.Store, tractID, text string, parents ...tract.Hash) tract.Commit {
	t.Helper()
	b, err := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	c := tract.Commit{Parents: append([]tract.Hash{}, parents...), Content: b.Hash, Operation: tract.OpAppend, Tract: tractID, Time: t0, Message: text}
	c.Hash = c.ComputeHash()
	update(t, s, func(tx tract.Tx) error {
		if err := tx.PutBlobs(context.Background(), b); err != nil {
			return err
		}
		return tx.PutCommits(context.Background(), c)
	})
	return c
}

func testStoreTracts(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	a := tract.Tract{ID: "id-a", Name: "a", Created: t0}
	b := tract.Tract{ID: "id-b", Name: "b", Created: t0.Add(time.Second),
		Spawn: &tract.SpawnPointer{Parent: "id-a", Commit: "abcd", Purpose: "research", Mode: tract.SpawnReference, Time: t0}}
	update(t, s, func(tx tract.Tx) error {
		if err := tx.CreateTract(ctx, b); err != nil {
			return err
		}
		return tx.CreateTract(ctx, a)
	})
	err := s.Update(ctx, func(tx tract.Tx) error { return tx.CreateTract(ctx, tract.Tract{ID: "id-c", Name: "a", Created: t0}) })
	if !errors.Is(err, tract.ErrExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	got, err := s.Tract(ctx, "b")
	if err != nil || got.ID != "id-b" || !got.Created.Equal(b.Created) || got.Spawn == nil || *got.Spawn != *b.Spawn {
		t.Fatalf("Tract(b) = %+v, %v", got, err)
	}
	list, err := s.Tracts(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "a" || list[1].Name != "b" {
		t.Fatalf("Tracts = %+v, %v", list, err)
	}
	if _, err := s.Tract(ctx, "zz"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("missing tract: %v", err)
	}
	update(t, s, func(tx tract.Tx) error {
		if err := tx.UpdateRef(ctx, tract.RefUpdate{Tract: "id-a", Name: "main", New: "x", Time: t0}); err != nil {
			return err
		}
		return tx.DeleteTract(ctx, "id-a", t0.Add(time.Hour))
	})
	if _, err := s.Tract(ctx, "a"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("deleted tract still found by name: %v", err)
	}
	if dt, err := s.TractByID(ctx, "id-a"); err != nil || !dt.Deleted.Equal(t0.Add(time.Hour)) {
		t.Fatalf("deleted tract by id: %+v %v", dt, err)
	}
	if refs, _ := s.Refs(ctx, "id-a"); len(refs) != 0 {
		t.Fatalf("refs of deleted tract: %+v", refs)
	}
	update(t, s, func(tx tract.Tx) error { return tx.CreateTract(ctx, tract.Tract{ID: "id-a2", Name: "a", Created: t0}) })
}

func testStoreBlobs(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	b, _ := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: "hi"})
	update(t, s, func(tx tract.Tx) error { return tx.PutBlobs(ctx, b) })
	update(t, s, func(tx tract.Tx) error { return tx.PutBlobs(ctx, b) })
	got, err := s.Blobs(ctx, []tract.Hash{b.Hash, "missing"}, "o200k_base")
	if err != nil || len(got) != 1 || string(got[0].Data) != string(b.Data) || got[0].Tokens != -1 || got[0].Size() != len(b.Data) {
		t.Fatalf("Blobs = %+v, %v", got, err)
	}
	// One hash at a time (a backend may look one up differently): the
	// blob, or nothing for a hash not stored or not a hash at all.
	if one, err := s.Blobs(ctx, []tract.Hash{b.Hash}, "o200k_base"); err != nil || len(one) != 1 || one[0].Hash != b.Hash || string(one[0].Data) != string(b.Data) {
		t.Fatalf("Blobs of one = %+v, %v", one, err)
	}
	for _, h := range []tract.Hash{"missing", tract.Hash(strings.Repeat("ab", 32)), b.Hash[:len(b.Hash)-1]} {
		if none, err := s.Blobs(ctx, []tract.Hash{h}, "o200k_base"); err != nil || len(none) != 0 {
			t.Fatalf("Blobs of %q = %+v, %v", h, none, err)
		}
	}
	update(t, s, func(tx tract.Tx) error {
		return tx.SetTokens(ctx, "o200k_base", map[tract.Hash]int{b.Hash: 7, "missing": 3})
	})
	got, _ = s.Blobs(ctx, []tract.Hash{b.Hash}, "o200k_base")
	if got[0].Tokens != 7 {
		t.Fatalf("tokens %d", got[0].Tokens)
	}
	got, _ = s.Blobs(ctx, []tract.Hash{b.Hash}, "cl100k_base")
	if got[0].Tokens != -1 {
		t.Fatalf("tokens in another encoding %d", got[0].Tokens)
	}
	update(t, s, func(tx tract.Tx) error { return tx.SetTokens(ctx, "some_future_base", map[tract.Hash]int{b.Hash: 11}) })
	update(t, s, func(tx tract.Tx) error { return tx.SetTokens(ctx, "cl100k_base", map[tract.Hash]int{b.Hash: 8}) })
	for enc, want := range map[string]int{"some_future_base": 11, "cl100k_base": 8, "o200k_base": 7, "": -1} {
		if got, _ := s.Blobs(ctx, []tract.Hash{b.Hash}, enc); got[0].Tokens != want {
			t.Errorf("tokens in %q: %d, want %d", enc, got[0].Tokens, want)
		}
	}
	n := 0
	if err := s.ScanBlobs(ctx, func(tract.Blob) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("ScanBlobs %d %v", n, err)
	}
}

// testStoreBlobCounts: PutBlobs records the counts it is given, for new
// blobs and blobs that existed, in every encoding; a call that mixes new and
// existing blobs (and repeats one) still links each commit to its own blob.
func testStoreBlobCounts(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	blob := func(text string) tract.Blob {
		b, err := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	counted := func(b tract.Blob, enc string, n int) tract.Blob {
		b.Tokens, b.Encoding = n, enc
		return b
	}
	old, fresh := blob("old"), blob("fresh")
	update(t, s, func(tx tract.Tx) error { return tx.PutBlobs(ctx, old) })
	var chain []tract.Commit
	update(t, s, func(tx tract.Tx) error {
		if err := tx.PutBlobs(ctx, counted(old, "cl100k_base", 5), counted(fresh, "o200k_base", 9), fresh); err != nil {
			return err
		}
		if err := tx.PutBlobs(ctx, counted(old, "future_base", 6), blob("a"), blob("b")); err != nil {
			return err
		}
		if err := tx.PutBlobs(ctx, blob("c"), counted(blob("d"), "future_base", 4)); err != nil {
			return err
		}
		var parent []tract.Hash
		for _, text := range []string{"d", "b", "old", "c", "fresh", "a", "old"} {
			c := tract.Commit{Parents: parent, Content: blob(text).Hash, Operation: tract.OpAppend, Tract: "t", Time: t0, Message: text}
			c.Hash = c.ComputeHash()
			parent, chain = []tract.Hash{c.Hash}, append(chain, c)
		}
		return tx.PutCommits(ctx, chain...)
	})
	for _, w := range []struct {
		text, enc string
		want      int
	}{{"old", "cl100k_base", 5}, {"old", "future_base", 6}, {"old", "o200k_base", -1}, {"fresh", "o200k_base", 9},
		{"d", "future_base", 4}, {"c", "future_base", -1}} {
		if got, err := s.Blobs(ctx, []tract.Hash{blob(w.text).Hash}, w.enc); err != nil || len(got) != 1 || got[0].Tokens != w.want {
			t.Errorf("blob %q in %s: %+v %v, want %d tokens", w.text, w.enc, got, err, w.want)
		}
	}
	hist, err := s.History(ctx, []tract.Hash{chain[len(chain)-1].Hash}, "")
	if err != nil || len(hist) != len(chain) {
		t.Fatalf("History: %d commits, %v", len(hist), err)
	}
	for _, h := range hist {
		sum := sha256.Sum256(h.Blob.Data)
		if data := tract.Hash(hex.EncodeToString(sum[:])); h.Blob.Hash != h.Commit.Content || data != h.Commit.Content {
			t.Errorf("commit %q reads blob %s (data hash %s), want %s", h.Commit.Message, h.Blob.Hash.Short(), data.Short(), h.Commit.Content.Short())
		}
	}
	n := 0
	if err := s.ScanBlobs(ctx, func(tract.Blob) error { n++; return nil }); err != nil || n != 6 {
		t.Fatalf("ScanBlobs %d %v, want 6 blobs", n, err)
	}
	// Every blob is searchable, whichever way its call went in.
	for _, text := range []string{"d", "b", "old", "c", "fresh", "a"} {
		found, err := s.Search(ctx, tract.SearchQuery{Words: []string{text}})
		if err != nil || len(found) == 0 {
			t.Errorf("search %q: %d commits, %v", text, len(found), err)
		}
		for _, f := range found {
			if f.Commit.Message != text {
				t.Errorf("search %q found commit %q", text, f.Commit.Message)
			}
		}
	}
}

func testStoreCommits(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	a := raw(t, s, "t1", "a")
	b := raw(t, s, "t1", "b")
	m := tract.Commit{Parents: []tract.Hash{b.Hash, a.Hash}, Operation: tract.OpMerge, Tract: "t2", Time: t0, Message: "merge"}
	m.Hash = m.ComputeHash()
	update(t, s, func(tx tract.Tx) error { return tx.PutCommits(ctx, m) })
	update(t, s, func(tx tract.Tx) error { return tx.PutCommits(ctx, m) }) // insert or ignore
	got, err := s.Commit(ctx, m.Hash)
	if err != nil || !slices.Equal(got.Parents, m.Parents) || !got.Time.Equal(t0) || got.ComputeHash() != m.Hash || got.Content != "" {
		t.Fatalf("Commit = %+v, %v", got, err)
	}
	if got, _ := s.Commit(ctx, a.Hash); len(got.Parents) != 0 || got.Parents == nil {
		t.Fatalf("root parents %#v", got.Parents)
	}
	if _, err := s.Commit(ctx, "nope"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("missing commit: %v", err)
	}
	pre, err := s.CommitsWithPrefix(ctx, string(m.Hash[:6]), 2)
	if err != nil || len(pre) != 1 || pre[0] != m.Hash {
		t.Fatalf("prefix %v %v", pre, err)
	}
	orphan := tract.Commit{Parents: []tract.Hash{"0000"}, Operation: tract.OpMerge, Tract: "t1", Time: t0}
	orphan.Hash = orphan.ComputeHash()
	if err := s.Update(ctx, func(tx tract.Tx) error { return tx.PutCommits(ctx, orphan) }); err == nil {
		t.Fatal("commit with a missing parent was stored")
	}
	noBlob := tract.Commit{Content: "ffff", Operation: tract.OpAppend, Tract: "t1", Time: t0}
	noBlob.Hash = noBlob.ComputeHash()
	if err := s.Update(ctx, func(tx tract.Tx) error { return tx.PutCommits(ctx, noBlob) }); err == nil {
		t.Fatal("commit with a missing blob was stored")
	}
}

func testStoreRefs(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	update(t, s, func(tx tract.Tx) error { return tx.CreateTract(ctx, tract.Tract{ID: "t1", Name: "one", Created: t0}) })
	up := func(u tract.RefUpdate) error {
		u.Tract, u.Time = "t1", t0
		return s.Update(ctx, func(tx tract.Tx) error { return tx.UpdateRef(ctx, u) })
	}
	if err := up(tract.RefUpdate{Name: "main", New: "h1", Operation: "commit"}); err != nil {
		t.Fatal(err)
	}
	if err := up(tract.RefUpdate{Name: "main", New: "h2"}); !errors.Is(err, tract.ErrBranchMoved) {
		t.Fatalf("create over existing: %v", err)
	}
	if err := up(tract.RefUpdate{Name: "main", Old: "h0", New: "h2"}); !errors.Is(err, tract.ErrBranchMoved) {
		t.Fatalf("stale old: %v", err)
	}
	if err := up(tract.RefUpdate{Name: "main", Old: "h1", New: "h2", Operation: "reset"}); err != nil {
		t.Fatal(err)
	}
	if err := up(tract.RefUpdate{Name: "HEAD", New: "branch:main"}); err != nil {
		t.Fatal(err)
	}
	ref, err := s.Ref(ctx, "t1", "main")
	if err != nil || ref.Value != "h2" {
		t.Fatalf("ref %+v %v", ref, err)
	}
	if err := up(tract.RefUpdate{Name: "main", Old: "h2", Operation: "delete"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ref(ctx, "t1", "main"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("deleted ref: %v", err)
	}
	refs, _ := s.Refs(ctx, "")
	if len(refs) != 1 || refs[0].Name != "HEAD" {
		t.Fatalf("refs %+v", refs)
	}
	log, err := s.Reflog(ctx, tract.ReflogQuery{Tract: "t1", Ref: "main"})
	if err != nil || len(log) != 3 || log[1].Old != "h1" || log[1].New != "h2" || log[1].Operation != "reset" || !log[1].Time.Equal(t0) || log[2].New != "" {
		t.Fatalf("reflog %+v %v", log, err)
	}
	if late, _ := s.Reflog(ctx, tract.ReflogQuery{Since: t0.Add(time.Second)}); len(late) != 0 {
		t.Fatalf("reflog since: %+v", late)
	}
}

func testStoreRollback(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	b, _ := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: "x"})
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx tract.Tx) error {
		if err := tx.CreateTract(ctx, tract.Tract{ID: "t1", Name: "one", Created: t0}); err != nil {
			return err
		}
		if err := tx.PutBlobs(ctx, b); err != nil {
			return err
		}
		if _, err := tx.Tract(ctx, "one"); err != nil {
			return err // a transaction reads its own writes
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v", err)
	}
	if _, err := s.Tract(ctx, "one"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatal("rolled back tract is visible")
	}
	if got, _ := s.Blobs(ctx, []tract.Hash{b.Hash}, ""); len(got) != 0 {
		t.Fatal("rolled back blob is visible")
	}
}

func testStoreAncestry(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	p1 := raw(t, s, "parent", "p1")
	c1 := raw(t, s, "child", "c1", p1.Hash)
	c2 := raw(t, s, "child", "c2", c1.Hash)
	p2 := raw(t, s, "parent", "p2", p1.Hash)
	m := tract.Commit{Parents: []tract.Hash{p2.Hash, c2.Hash}, Operation: tract.OpMerge, Tract: "parent", Time: t0}
	m.Hash = m.ComputeHash()
	update(t, s, func(tx tract.Tx) error { return tx.PutCommits(ctx, m) })
	other := raw(t, s, "x", "unrelated")
	anc, err := s.Ancestry(ctx, []tract.Hash{m.Hash})
	if err != nil || len(anc) != 5 {
		t.Fatalf("Ancestry = %d commits, %v", len(anc), err)
	}
	anc, _ = s.Ancestry(ctx, []tract.Hash{c1.Hash, other.Hash})
	if len(anc) != 3 {
		t.Fatalf("Ancestry of two heads = %d commits", len(anc))
	}
	update(t, s, func(tx tract.Tx) error {
		return tx.SetTokens(ctx, "o200k_base", map[tract.Hash]int{c2.Content: 9})
	})
	hist, err := s.History(ctx, []tract.Hash{m.Hash}, "o200k_base")
	if err != nil || len(hist) != 5 {
		t.Fatalf("History = %d commits, %v", len(hist), err)
	}
	for _, hc := range hist {
		switch hc.Commit.Hash {
		case m.Hash:
			if hc.Blob.Hash != "" || len(hc.Commit.Parents) != 2 {
				t.Errorf("merge in history: %+v", hc)
			}
		case c2.Hash:
			if hc.Blob.Hash != c2.Content || hc.Blob.Tokens != 9 || len(hc.Blob.Data) == 0 {
				t.Errorf("c2 in history: %+v", hc.Blob)
			}
		default:
			if hc.Blob.Hash != hc.Commit.Content || hc.Blob.Tokens != -1 {
				t.Errorf("commit %s in history: blob %+v", hc.Commit.Message, hc.Blob)
			}
		}
	}
}

func testStoreAnnotations(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	a := raw(t, s, "t1", "a")
	b := raw(t, s, "t1", "b")
	update(t, s, func(tx tract.Tx) error {
		for _, an := range []tract.Annotation{
			{Viewer: "t1", Commit: a.Hash, Priority: tract.Skip, Reason: "r", Time: t0, Head: b.Hash},
			{Viewer: "t2", Commit: a.Hash, Priority: tract.Pinned, Time: t0},
			{Viewer: "t1", Commit: b.Hash, Priority: tract.Important, Time: t0},
		} {
			if err := tx.AddAnnotation(ctx, an); err != nil {
				return err
			}
		}
		return nil
	})
	all, err := s.Annotations(ctx, tract.AnnotationQuery{})
	if err != nil || len(all) != 3 || all[0].Seq >= all[1].Seq || all[0].Reason != "r" || all[0].Head != b.Hash || !all[0].Time.Equal(t0) {
		t.Fatalf("annotations %+v %v", all, err)
	}
	if got, _ := s.Annotations(ctx, tract.AnnotationQuery{Viewers: []string{"t1"}}); len(got) != 2 {
		t.Fatalf("by viewer %+v", got)
	}
	if got, _ := s.Annotations(ctx, tract.AnnotationQuery{Commit: a.Hash, AfterSeq: all[0].Seq}); len(got) != 1 || got[0].Viewer != "t2" {
		t.Fatalf("by commit after seq %+v", got)
	}
	if err := s.Update(ctx, func(tx tract.Tx) error {
		return tx.AddAnnotation(ctx, tract.Annotation{Viewer: "t1", Commit: "nope", Priority: tract.Skip, Time: t0})
	}); err == nil {
		t.Fatal("annotation of a missing commit stored")
	}
}

func testStoreDeletes(t *testing.T, newStore Factory) {
	ctx, s := context.Background(), newStore(t)
	a := raw(t, s, "t1", "a")
	b := raw(t, s, "t2", "b", a.Hash)
	c := raw(t, s, "t1", "c")
	update(t, s, func(tx tract.Tx) error {
		return tx.AddAnnotation(ctx, tract.Annotation{Viewer: "t1", Commit: c.Hash, Priority: tract.Skip, Time: t0})
	})
	if err := s.Update(ctx, func(tx tract.Tx) error { return tx.DeleteCommits(ctx, []tract.Hash{a.Hash}) }); err == nil {
		t.Fatal("deleted a commit another tract's commit builds on")
	}
	eb, _ := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: "C"})
	edit := tract.Commit{Parents: []tract.Hash{b.Hash}, Content: eb.Hash, Operation: tract.OpEdit, EditTarget: c.Hash, Tract: "t1", Time: t0}
	edit.Hash = edit.ComputeHash()
	update(t, s, func(tx tract.Tx) error {
		if err := tx.PutBlobs(ctx, eb); err != nil {
			return err
		}
		return tx.PutCommits(ctx, edit)
	})
	if err := s.Update(ctx, func(tx tract.Tx) error { return tx.DeleteCommits(ctx, []tract.Hash{c.Hash}) }); err == nil {
		t.Fatal("deleted the target of a surviving edit")
	}
	update(t, s, func(tx tract.Tx) error { return tx.DeleteCommits(ctx, []tract.Hash{b.Hash, a.Hash, edit.Hash, c.Hash}) })
	if _, err := s.Commit(ctx, a.Hash); !errors.Is(err, tract.ErrNotFound) {
		t.Fatal("commit survived delete")
	}
	if got, _ := s.Annotations(ctx, tract.AnnotationQuery{}); len(got) != 0 {
		t.Fatal("annotations of deleted commits survived")
	}
	var n int
	update(t, s, func(tx tract.Tx) error {
		var err error
		n, err = tx.DeleteUnusedBlobs(ctx)
		return err
	})
	if n != 4 {
		t.Fatalf("deleted %d blobs, want 4", n)
	}
	update(t, s, func(tx tract.Tx) error {
		if err := tx.UpdateRef(ctx, tract.RefUpdate{Tract: "t1", Name: "r", New: "x", Time: t0}); err != nil {
			return err
		}
		return tx.UpdateRef(ctx, tract.RefUpdate{Tract: "t1", Name: "r", Old: "x", New: "y", Time: t0.Add(time.Hour)})
	})
	update(t, s, func(tx tract.Tx) error {
		var err error
		n, err = tx.PruneReflog(ctx, t0.Add(time.Minute))
		return err
	})
	if log, _ := s.Reflog(ctx, tract.ReflogQuery{}); n != 1 || len(log) != 1 || log[0].New != "y" {
		t.Fatalf("pruned %d, left %+v", n, log)
	}
}
