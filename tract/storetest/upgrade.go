package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// Downgrade turns the store newStore made back into the shape of schema
// version 1, the first release (no commit positions, settings or search
// index), closes it, opens it writable once — what lineage tract migrate
// or any write command does — and then read-only, returning that handle.
type Downgrade func(t *testing.T, s tract.Store) tract.Store

// RunUpgrade checks a store's migration from schema version 1: every
// commit gets the position the current code gives it when it writes it,
// and the reads that follow positions (HEAD~N, log -n) cost O(touched) on
// the upgraded store, counted in rows.
func RunUpgrade(t *testing.T, newStore Factory, downgrade Downgrade) {
	const n = 3000
	ctx := context.Background()
	cs, r := countedHistory(t, newStore, n)
	s := cs.store
	steps := []func() error{
		func() error { _, err := r.CreateBranch(ctx, "main", "side", "HEAD~100"); return err },
		func() error { return r.Switch(ctx, "main", "side") },
		func() error { _, err := r.Commit(ctx, "main", message("user", "on the side")); return err },
		func() error { return r.Switch(ctx, "main", "main") },
		func() error {
			_, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "research"})
			return err
		},
		func() error { _, err := r.Commit(ctx, "kid", message("assistant", "finding")); return err },
		func() error { _, err := r.Commit(ctx, "main", message("user", "meanwhile")); return err },
		func() error { _, err := r.MergeFrom(ctx, "kid", ""); return err },
		func() error { _, err := r.Merge(ctx, "main", "side", tract.MergeOptions{NoFF: true}); return err },
		func() error { _, err := r.Commit(ctx, "main", message("user", "after the merges")); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	reads := readsFollowingPositions(ctx, n)
	fresh := make([]int64, len(reads))
	for i, read := range reads {
		fresh[i] = countRows(t, cs, read)
	}
	want := positions(t, s)
	up := downgrade(t, s)
	t.Cleanup(func() { up.Close() })
	got := positions(t, up)
	if len(got) != len(want) {
		t.Fatalf("the upgraded store holds %d commits, want %d", len(got), len(want))
	}
	for h, p := range want {
		if got[h] != p {
			t.Fatalf("commit %s: upgraded position %+v, want %+v (as written)", h.Short(), got[h], p)
		}
	}
	// The upgraded store reads what a store this version wrote reads, a
	// small part of the history (without positions HEAD~1500 alone
	// reads 1500 commits).
	cs = NewCounting(up)
	for i, read := range reads {
		rows := countRows(t, cs, read)
		t.Logf("%s: %d rows upgraded, %d as written", read.name, rows, fresh[i])
		if rows > fresh[i] || rows > n/20 {
			t.Errorf("%s read %d rows of a %d-commit upgraded store, %d on the store as written", read.name, rows, n, fresh[i])
		}
	}
}

// positionRead is a read that follows commit positions.
type positionRead struct {
	name string
	fn   func(r *tract.Repo) error
}

// readsFollowingPositions are the reads RunUpgrade counts on a history of
// n imported messages followed by 4 commits.
func readsFollowingPositions(ctx context.Context, n int) []positionRead {
	reads := []positionRead{{"log -n 5", func(r *tract.Repo) error {
		log, err := r.Log(ctx, "main", tract.LogOptions{N: 5})
		if err == nil && (len(log) != 5 || log[0].Summary != "after the merges") {
			err = fmt.Errorf("log -n 5 = %+v", log)
		}
		return err
	}}}
	for _, k := range []int{1, 50, n / 2} {
		reads = append(reads, positionRead{fmt.Sprintf("show HEAD~%d", k), func(r *tract.Repo) error {
			sh, err := r.Show(ctx, "main", fmt.Sprintf("HEAD~%d", k))
			// Below HEAD: the merge of side, the merge-from, "meanwhile", then the import.
			if want := fmt.Sprint("message ", n-1-(k-4)); err == nil && k >= 4 && (sh.Content == nil || sh.Content.Text != want) {
				err = fmt.Errorf("HEAD~%d shows %+v, want %q", k, sh.Content, want)
			}
			return err
		}})
	}
	return reads
}

// countRows runs read on cs and returns the rows it read.
func countRows(t *testing.T, cs *Counting, read positionRead) int64 {
	t.Helper()
	cs.Rows()
	if err := read.fn(tract.New(cs, tract.Options{})); err != nil {
		t.Fatalf("%s: %v", read.name, err)
	}
	return cs.Rows()
}

// positions are the stored positions of every commit of s, all known.
func positions(t *testing.T, s tract.Store) map[tract.Hash]tract.Position {
	t.Helper()
	out := map[tract.Hash]tract.Position{}
	err := s.ScanCommits(context.Background(), func(c tract.Commit) error {
		if !c.Pos.Known() {
			return fmt.Errorf("commit %s has no position", c.Hash.Short())
		}
		out[c.Hash] = c.Pos
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
