package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// A big import leaves the word index in one segment: FTS5 flushes one
// write in pieces, and every lookup of find would seek each piece.
func TestImportMergesWordIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 60k messages")
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, r := createRepo(t, p)
	defer s.Close()
	segments := func() int {
		t.Helper()
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM blob_words_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	reqs := make([]tract.CommitRequest, 60_000)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user",
			Text: fmt.Sprintf("message %d about report %d of the service w%d", i, i%97, i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != 1 {
		t.Fatalf("the word index is in %d segments after one import, want 1", n)
	}
	// The merges the import turned off are back at FTS5's defaults.
	for k, want := range map[string]int{"automerge": 4, "crisismerge": 16} {
		var v int
		if err := s.DB().QueryRowContext(ctx, `SELECT v FROM blob_words_config WHERE k = ?`, k).Scan(&v); err != nil || v != want {
			t.Errorf("after the import %s = %d (%v), want %d", k, v, err, want)
		}
	}
	hits, err := r.Find(ctx, "main", tract.FindOptions{Text: "report", Limit: 5})
	if err != nil || len(hits) != 5 {
		t.Fatalf("find report -n 5: %d hits, %v", len(hits), err)
	}
}

// Many imports, each a small part of a big store (sessions imported one by
// one), keep the word index in a few segments: merging all of it at each
// write never finished within the write's budget and left about two
// segments a write, each a seek for every search.
func TestManyImportsKeepFewSegments(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 32k messages")
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, r := createRepo(t, p)
	defer s.Close()
	write := func(w, n int) {
		t.Helper()
		reqs := make([]tract.CommitRequest, n)
		for i := range reqs {
			text := fmt.Sprintf("message %d of write %d about report %d", i, w, i%97)
			for k := range 8 {
				text += fmt.Sprintf(" w%dy%dk%d", w, i, k)
			}
			reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: text}}
		}
		if _, err := r.Import(ctx, "main", reqs); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 20_000) // a big index first
	const writes = 12
	for w := 1; w <= writes; w++ {
		write(w, 1000) // each the least a write that merges indexes (mergeAfter)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM blob_words_idx`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > writes/2 {
		t.Errorf("the word index is in %d segments after a big import and %d small ones, want at most %d", n, writes, writes/2)
	} else {
		t.Logf("%d segments after %d imports", n, writes)
	}
	hits, err := r.Find(ctx, "main", tract.FindOptions{Text: "w12y999k3"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("find w12y999k3: %d hits, %v", len(hits), err)
	}
}
