package sessions

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestAppendWritesOnlyTheNewTurn is the O(new) of live recording counted
// in the store's own unit, the database page: one turn appended to a
// recorded session and imported writes the same pages (WAL frames: every
// B-tree page a row or index entry changed, each of the import's
// transactions counted) whether the session held few turns or many, and
// reads no stored commit, in one write transaction. A write that touched
// rows in proportion to the session would grow with it.
//
// One append's pages depend on whether it happens to split a leaf of one
// of the indexes (14 to 25 pages measured from 200 to 3,000 turns, under
// Windows as under Linux), so each size is the median of several
// consecutive appends: a split lands in few of them.
func TestAppendWritesOnlyTheNewTurn(t *testing.T) {
	large := 1000
	if testing.Short() {
		large = 500
	}
	const few, appends = 200, 5
	small := appendPages(t, few, appends)
	big := appendPages(t, large, appends)
	t.Logf("median pages written by a one-turn append: %d after %d turns, %d after %d", small, few, big, large)
	if small == 0 {
		t.Fatal("the append wrote no page: the test measures nothing")
	}
	// A write in proportion to the session would be hundreds of pages at
	// 1,000 turns.
	if big > small+8 || big > 48 {
		t.Errorf("a one-turn append wrote %d pages after %d turns, %d after %d: it grows with the session", big, large, small, few)
	}
}

// appendPages records a session of n turns, then appends one turn and
// imports it, k times: the median of the WAL frames those imports wrote.
func appendPages(t *testing.T, n, k int) int {
	t.Helper()
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "aaaaaaaa-2222-4333-8444-555555555555.jsonl")
	last := writeTurns(t, p, 0, n, "")
	_, st := newRepo(t)
	cs := &countingStore{Store: st}
	im := &Importer{Repo: tract.New(cs, tract.Options{})}
	src := []Source{{Harness: Claude, Path: p}}
	if _, err := im.Import(ctx, src); err != nil {
		t.Fatal(err)
	}
	db := st.(*sqlite.Store).DB()
	frames := make([]int, 0, k)
	for i := range k {
		if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		last = writeTurns(t, p, n+i, 1, last)
		cs.read.Store(0)
		cs.written.Store(0)
		cs.updates.Store(0)
		rep, err := im.Import(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		// The records, the cursor and the session's metadata: one write.
		if u := cs.updates.Load(); u != 1 {
			t.Errorf("after %d turns: a one-turn append ran %d write transactions, want 1", n+i, u)
		}
		if rep.Added != 2 || cs.written.Load() != 2 || cs.read.Load() != 0 || rep.Sessions[0].IndexReads != 0 {
			t.Fatalf("after %d turns: added %d, wrote %d commit rows, read %d (index %d); want 2, 2, 0, 0",
				n+i, rep.Added, cs.written.Load(), cs.read.Load(), rep.Sessions[0].IndexReads)
		}
		var busy, f, done int
		if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &f, &done); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	slices.Sort(frames)
	t.Logf("after %d turns: pages per append %v", n, frames)
	return frames[k/2]
}
