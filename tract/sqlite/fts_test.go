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
