package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"CostFollowsWhatIsTouched", testCostFollowsTouched},
	})
}

// countedHistory is a repository on a counting store whose tract main
// holds n user messages "message 0" … "message n-1".
func countedHistory(t *testing.T, newStore Factory, n int) (*Counting, *tract.Repo) {
	t.Helper()
	ctx := context.Background()
	cs := NewCounting(newStore(t))
	clk := newClock()
	r := tract.New(cs, tract.Options{Now: clk.Now})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = message("user", fmt.Sprint("message ", i))
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	return cs, r
}

// rowMeasure returns a check that fn, run on a history of n commits, reads
// at most limit rows of cs.
func rowMeasure(t *testing.T, cs *Counting, n int) func(what string, limit int64, fn func() error) {
	return func(what string, limit int64, fn func() error) {
		t.Helper()
		cs.Rows()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := cs.Rows(); got > limit {
			t.Errorf("%s read %d rows of a %d-commit history, want at most %d", what, got, n, limit)
		} else {
			t.Logf("%s: %d rows", what, got)
		}
	}
}

// testCostFollowsTouched builds a 10k history with a merged child and
// checks, by counting rows, that the commands of an agent's step read
// O(what they show or change), not the history.
func testCostFollowsTouched(t *testing.T, newStore Factory) {
	const n = 10_000
	ctx := context.Background()
	cs, r := countedHistory(t, newStore, n)
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "research"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := r.Commit(ctx, "kid", message("assistant", fmt.Sprint("finding ", i))); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Commit(ctx, "main", message("user", fmt.Sprint("meanwhile ", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.CreateBranch(ctx, "main", "side", "HEAD~100"); err != nil {
		t.Fatal(err)
	}
	cs.Rows()

	measure := rowMeasure(t, cs, n)
	measure("merge-from", 60, func() error {
		res, err := r.MergeFrom(ctx, "kid", "")
		if err == nil && res.Kind != tract.MergeCommit {
			err = fmt.Errorf("kind %s, want merge", res.Kind)
		}
		return err
	})
	measure("merge-from, already merged", 30, func() error {
		res, err := r.MergeFrom(ctx, "kid", "")
		if err == nil && res.Kind != tract.MergeUpToDate {
			err = fmt.Errorf("kind %s, want up-to-date", res.Kind)
		}
		return err
	})
	measure("log -n 5", 60, func() error {
		log, err := r.Log(ctx, "main", tract.LogOptions{N: 5})
		if err == nil && (len(log) != 5 || log[0].Operation != tract.OpMerge || log[1].Summary != "finding 2") {
			err = fmt.Errorf("log -n 5 = %+v, want the merge then the child's work", log)
		}
		return err
	})
	for _, k := range []int{1, 50, 5000, n} {
		measure(fmt.Sprintf("show HEAD~%d", k), 120, func() error {
			s, err := r.Show(ctx, "main", fmt.Sprintf("HEAD~%d", k))
			if err != nil {
				return err
			}
			// HEAD is the merge-from; below it 3 "meanwhile" commits, then the import.
			want := fmt.Sprint("message ", n-1-(k-4))
			if k < 4 {
				want = fmt.Sprint("meanwhile ", 3-k)
			}
			if s.Content == nil || s.Content.Text != want {
				return fmt.Errorf("HEAD~%d shows %+v, want %q", k, s.Content, want)
			}
			return nil
		})
	}
	showReads(t, cs, r, n)
	measure("merge of a merged branch", 2*100+20, func() error {
		res, err := r.Merge(ctx, "main", "side", tract.MergeOptions{})
		if err == nil && res.Kind != tract.MergeUpToDate {
			err = fmt.Errorf("kind %s, want up-to-date", res.Kind)
		}
		return err
	})
	measure("reset HEAD~2", 40, func() error {
		_, err := r.Reset(ctx, "main", "HEAD~2")
		return err
	})
	// The whole history is what a cold compile reads: the counter counts.
	cs.Rows()
	if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := cs.Rows(); got < n {
		t.Errorf("a cold compile read %d rows: the counter misses reads", got)
	}
}

// showReads checks that show HEAD~N on a store that walks pointers makes
// the same few reads whatever N: the skip walk in two, HEAD's position and
// the path (without it a read a commit on the path, 35 for N = 10,000);
// with them the tract, HEAD's ref and its branch's, the commit shown, its
// blob and its annotations.
func showReads(t *testing.T, cs *Counting, r *tract.Repo, n int) {
	t.Helper()
	if _, walks := cs.store.(tract.PointerWalker); !walks {
		return
	}
	ctx := context.Background()
	for _, k := range []int{50, n} {
		cs.Calls()
		if _, err := r.Show(ctx, "main", fmt.Sprintf("HEAD~%d", k)); err != nil {
			t.Fatal(err)
		}
		if got := cs.Calls(); got > 8 {
			t.Errorf("show HEAD~%d made %d store reads, want at most 8", k, got)
		}
	}
}
