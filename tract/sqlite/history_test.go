package sqlite_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/google/go-cmp/cmp"
)

// TestHistoryLongRange: a range long enough to be read in two halves
// concurrently gives what one read inside a transaction gives, with an edit,
// a spawned child merged back and commit messages along the way.
func TestHistoryLongRange(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 18k messages; the -short passes (linux/386, Windows) leave it to the native run")
	}
	ctx := context.Background()
	s := newStore(t)
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := messagesT(9_000)
	reqs[4_500].Message = "halfway"
	first, err := r.Import(ctx, "main", reqs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Edit(ctx, "main", string(first[10].Hash), "edited", "fix"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(ctx, "kid", messagesT(9_000)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.MergeFrom(ctx, "kid", ""); err != nil {
		t.Fatal(err)
	}
	if got := historyBothWays(t, r); len(got) != 18_002 {
		t.Fatalf("history has %d commits, want 18002", len(got))
	}
	res, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 18_000 || res.Messages[10].Content != "edited" {
		t.Fatalf("compiled %d messages, 11th %q", len(res.Messages), res.Messages[10].Content)
	}
}

func messagesT(n int) []tract.CommitRequest {
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user",
			Text: "m " + strings.Repeat("x", i%7)}}
	}
	return reqs
}

// TestHistoryLongRangeWithGap: a range read in two halves whose first half
// lost commits to GC (a reset, more appends, a collection) gives what one
// read inside a transaction gives: the second half slides down over the gap.
func TestHistoryLongRangeWithGap(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 18k messages; the -short passes (linux/386, Windows) leave it to the native run")
	}
	ctx := context.Background()
	s := newStore(t)
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(ctx, "main", messagesT(5_000)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reset(ctx, "main", "HEAD~3000"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(ctx, "main", messagesT(6_000)); err != nil {
		t.Fatal(err)
	}
	if rep, err := r.GC(ctx, tract.GCOptions{}); err != nil || len(rep.Removed) != 3_000 {
		t.Fatalf("GC removed %d commits (%v), want 3000", len(rep.Removed), err)
	}
	if got := historyBothWays(t, r); len(got) != 8_000 {
		t.Fatalf("history has %d commits, want 8000", len(got))
	}
}

// historyBothWays reads the history of main's head outside a transaction
// (ranges in two halves, concurrently) and inside one, fails unless they
// hold the same commits, and returns them sorted by hash.
func historyBothWays(t *testing.T, r *tract.Repo) []tract.HistoryCommit {
	t.Helper()
	ctx, s := context.Background(), r.Store()
	_, head, err := r.Head(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	heads := []tract.Hash{head.Commit}
	got, err := s.History(ctx, heads, "o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	var want []tract.HistoryCommit
	if err := s.Update(ctx, func(tx tract.Tx) error {
		want, err = tx.History(ctx, heads, "o200k_base")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	byHash := func(a, b tract.HistoryCommit) int {
		return strings.Compare(string(a.Commit.Hash), string(b.Commit.Hash))
	}
	slices.SortFunc(got, byHash)
	slices.SortFunc(want, byHash)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("history outside a transaction differs (-want +got):\n%s", d)
	}
	return got
}
