package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{{"CompressAndStatusCostFollowsTouched", testCompressStatusCost}})
}

// testCompressStatusCost builds a 10k history and checks, by counting rows,
// that compress's range check reads O(log depth) rows wherever the range
// lies, and that status's ahead/behind walk reads O(commits between the
// branches and their merge base), not the history. The compiled context is
// warm, as in a long-running server or between an agent's steps.
func testCompressStatusCost(t *testing.T, newStore Factory) {
	const n = 10_000
	ctx := context.Background()
	cs, r := countedHistory(t, newStore, n)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	statusBranches(t, r)
	measure := rowMeasure(t, cs, n)

	// status without the old branch: what lies between the branches and
	// main, 100 + 3 + 40 commits, plus a constant.
	must(r.DeleteBranch(ctx, "main", "old", true))
	var err error
	measure("status", 2*(100+3+40)+60, func() error {
		st, err := r.Status(ctx, "main")
		if err != nil {
			return err
		}
		want := []tract.BranchStatus{{Name: "ahead", Ahead: 3, Behind: 40}, {Name: "behind", Behind: 100}}
		if len(st.Branches) != len(want) {
			return fmt.Errorf("branches %+v", st.Branches)
		}
		for i, b := range st.Branches {
			if b.Name != want[i].Name || b.Ahead != want[i].Ahead || b.Behind != want[i].Behind {
				return fmt.Errorf("branch %+v, want %+v", b, want[i])
			}
		}
		return nil
	})
	// The counter counts the walk: a branch 9,000 behind costs about 9,000 rows.
	_, err = r.CreateBranch(ctx, "main", "old", "HEAD~9000")
	must(err)
	cs.Rows()
	st, err := r.Status(ctx, "main")
	must(err)
	if got := cs.Rows(); got < 9000 || len(st.Branches) != 3 || st.Branches[2].Behind != 9000 {
		t.Errorf("status with a branch 9000 behind read %d rows (%+v): the counter misses the walk", got, st.Branches)
	}

	// Compress, dry and real, at the top, the middle and the bottom of the
	// history: the range check and the store update read O(log depth) rows.
	for _, rng := range []struct{ from, to int }{{12, 3}, {5010, 5000}, {n - 1, n - 20}} {
		o := tract.CompressOptions{Range: fmt.Sprintf("HEAD~%d..HEAD~%d", rng.from, rng.to), Summary: "a summary"}
		for _, dry := range []bool{true, false} {
			o.DryRun = dry
			measure(fmt.Sprintf("compress %s (dry run %v)", o.Range, dry), 150, func() error {
				res, err := r.Compress(ctx, "main", o)
				if err == nil && len(res.Replaced) != rng.from-rng.to+1 {
					err = fmt.Errorf("replaced %d messages, want %d", len(res.Replaced), rng.from-rng.to+1)
				}
				return err
			})
			// The next compress's context: warm it outside the count.
			_, err := r.Compile(ctx, "main", tract.CompileOptions{})
			must(err)
		}
	}
	// A range off the history is refused after O(log depth) rows too.
	measure("compress of a range off the history", 150, func() error {
		_, err := r.Compress(ctx, "main", tract.CompressOptions{Range: "HEAD~5000..ahead", Summary: "s"})
		if err == nil || !strings.Contains(err.Error(), "is not on the current branch's first-parent history") {
			return fmt.Errorf("a range ending off the first-parent history: %v", err)
		}
		return nil
	})
}

// statusBranches makes the branches testCompressStatusCost measures status
// with — behind: 100 commits behind main; ahead: 3 commits of its own, from
// main's HEAD~40 (3 ahead, 40 behind); old: 9,000 behind — and warms main's
// compile.
func statusBranches(t *testing.T, r *tract.Repo) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := r.CreateBranch(ctx, "main", "behind", "HEAD~100")
	must(err)
	_, err = r.CreateBranch(ctx, "main", "old", "HEAD~9000")
	must(err)
	_, err = r.CreateBranch(ctx, "main", "ahead", "HEAD~40")
	must(err)
	must(r.Switch(ctx, "main", "ahead"))
	for i := 0; i < 3; i++ {
		_, err := r.Commit(ctx, "main", message("assistant", fmt.Sprint("aside ", i)))
		must(err)
	}
	must(r.Switch(ctx, "main", "main"))
	_, err = r.Compile(ctx, "main", tract.CompileOptions{}) // warm
	must(err)
}
