package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// TestSmallWriteCutsNoWords counts the blobs whose words a write cuts: none
// for a small write whose words wait in the pending list, the new ones for
// a write that indexes (the pending ones are cut then, from their data),
// every one for a write too big to wait.
func TestSmallWriteCutsNoWords(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "lineage.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	next := 0
	put := func(n, size int) int64 {
		t.Helper()
		blobs := make([]tract.Blob, n)
		for i := range blobs {
			text := fmt.Sprint("m", next, " ", strings.Repeat("x", size))
			next++
			b, err := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: text})
			if err != nil {
				t.Fatal(err)
			}
			blobs[i] = b
		}
		before := blobsCut.Load()
		if err := s.Update(ctx, func(tx tract.Tx) error { return tx.PutBlobs(ctx, blobs...) }); err != nil {
			t.Fatal(err)
		}
		return blobsCut.Load() - before
	}
	pending := func() int {
		t.Helper()
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM unindexed`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if cut := put(1, 10); cut != 0 || pending() != 1 {
		t.Fatalf("one small blob: %d cut, %d pending; want 0 and 1", cut, pending())
	}
	if cut := put(pendingRows-1, 10); cut != 0 || pending() != pendingRows {
		t.Fatalf("the list filled: %d cut, %d pending; want 0 and %d", cut, pending(), pendingRows)
	}
	if cut := put(2, 10); cut != 2 || pending() != 0 {
		t.Fatalf("past the list: %d cut, %d pending; want the 2 new and 0", cut, pending())
	}
	if cut := put(1, pendingBytes); cut != 1 || pending() != 0 {
		t.Fatalf("one blob over the pending bytes: %d cut, %d pending; want 1 and 0", cut, pending())
	}
	if cut := put(pendingRows, 10); cut != pendingRows || pending() != 0 {
		t.Fatalf("a write of %d: %d cut, %d pending; want all and 0", pendingRows, cut, pending())
	}
	// The blobs that waited are in the index with the words of their
	// data, as are the ones cut at once.
	for _, w := range []string{"m0", "m63", "m64", "m66"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM blob_words WHERE blob_words MATCH ?`, w).Scan(&n); err != nil || n != 1 {
			t.Errorf("the index holds %q %d times (%v), want once", w, n, err)
		}
	}
}
