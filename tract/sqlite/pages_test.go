package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// TestCommitWritesPagesNotHistory: `tract commit` touches O(1) rows,
// counted in database pages (WAL frames, every B-tree page a row or index
// entry changed): one commit on a history of 5,000 writes about the
// pages one on a history of 500 does, however long the history.
func TestCommitWritesPagesNotHistory(t *testing.T) {
	long := 5_000
	if testing.Short() {
		long = 2_000
	}
	few := commitPages(t, 500)
	many := commitPages(t, long)
	t.Logf("pages one commit writes: %d on 500 commits, %d on %d", few, many, long)
	if few == 0 {
		t.Fatal("the commit wrote no page: the test measures nothing")
	}
	if many > few+8 || many > 32 {
		t.Errorf("one commit wrote %d pages on %d commits, %d on 500: it grows with the history", many, long, few)
	}
}

// commitPages imports n messages, empties the WAL, commits one message and
// returns the WAL frames that commit wrote.
func commitPages(t *testing.T, n int) int {
	t.Helper()
	ctx := context.Background()
	s, r := createRepo(t, filepath.Join(t.TempDir(), "lineage.db"))
	defer s.Close()
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: "one more"}}); err != nil {
		t.Fatal(err)
	}
	var busy, frames, done int
	if err := s.DB().QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		t.Fatal(err)
	}
	return frames
}
