package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"CostFollowsWhatIsTouched", testCostFollowsTouched},
	})
}

// Counting wraps a store and counts the rows its reads return (a lookup of
// one row counts one, a list its length, a scan each row it calls back
// with), inside transactions too: the cost of a command in rows, whatever
// the backend.
type Counting struct {
	countingReader
	store tract.Store
}

// NewCounting wraps s.
func NewCounting(s tract.Store) *Counting {
	return &Counting{countingReader: countingReader{Reader: s, rows: new(atomic.Int64)}, store: s}
}

// Rows returns the rows read so far and starts counting again from zero.
func (c *Counting) Rows() int64 { return c.rows.Swap(0) }

// Close closes the store.
func (c *Counting) Close() error { return c.store.Close() }

// Update counts the reads of the transaction.
func (c *Counting) Update(ctx context.Context, fn func(tract.Tx) error) error {
	return c.store.Update(ctx, func(tx tract.Tx) error {
		return fn(countingTx{Tx: tx, countingReader: countingReader{Reader: tx, rows: c.rows}})
	})
}

type countingTx struct {
	tract.Tx
	countingReader
}

// The reads of countingTx are countingReader's.
func (t countingTx) Tract(ctx context.Context, name string) (tract.Tract, error) {
	return t.countingReader.Tract(ctx, name)
}
func (t countingTx) TractByID(ctx context.Context, id string) (tract.Tract, error) {
	return t.countingReader.TractByID(ctx, id)
}
func (t countingTx) Tracts(ctx context.Context) ([]tract.Tract, error) {
	return t.countingReader.Tracts(ctx)
}
func (t countingTx) Ref(ctx context.Context, tractID, name string) (tract.Ref, error) {
	return t.countingReader.Ref(ctx, tractID, name)
}
func (t countingTx) Refs(ctx context.Context, tractID string) ([]tract.Ref, error) {
	return t.countingReader.Refs(ctx, tractID)
}
func (t countingTx) Reflog(ctx context.Context, q tract.ReflogQuery) ([]tract.ReflogEntry, error) {
	return t.countingReader.Reflog(ctx, q)
}
func (t countingTx) Commit(ctx context.Context, h tract.Hash) (tract.Commit, error) {
	return t.countingReader.Commit(ctx, h)
}
func (t countingTx) CommitsWithPrefix(ctx context.Context, prefix string, limit int) ([]tract.Hash, error) {
	return t.countingReader.CommitsWithPrefix(ctx, prefix, limit)
}
func (t countingTx) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	return t.countingReader.Ancestry(ctx, heads)
}
func (t countingTx) History(ctx context.Context, heads []tract.Hash, encoding string) ([]tract.HistoryCommit, error) {
	return t.countingReader.History(ctx, heads, encoding)
}
func (t countingTx) ScanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	return t.countingReader.ScanCommits(ctx, fn)
}
func (t countingTx) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	return t.countingReader.Blobs(ctx, hashes, encoding)
}
func (t countingTx) ScanBlobs(ctx context.Context, fn func(tract.Blob) error) error {
	return t.countingReader.ScanBlobs(ctx, fn)
}
func (t countingTx) Settings(ctx context.Context, tractID string) ([]tract.Setting, error) {
	return t.countingReader.Settings(ctx, tractID)
}
func (t countingTx) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	return t.countingReader.Annotations(ctx, q)
}

type countingReader struct {
	tract.Reader
	rows *atomic.Int64
}

func (r countingReader) Tract(ctx context.Context, name string) (tract.Tract, error) {
	v, err := r.Reader.Tract(ctx, name)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) TractByID(ctx context.Context, id string) (tract.Tract, error) {
	v, err := r.Reader.TractByID(ctx, id)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) Tracts(ctx context.Context) ([]tract.Tract, error) {
	v, err := r.Reader.Tracts(ctx)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) Ref(ctx context.Context, tractID, name string) (tract.Ref, error) {
	v, err := r.Reader.Ref(ctx, tractID, name)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) Refs(ctx context.Context, tractID string) ([]tract.Ref, error) {
	v, err := r.Reader.Refs(ctx, tractID)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) Reflog(ctx context.Context, q tract.ReflogQuery) ([]tract.ReflogEntry, error) {
	v, err := r.Reader.Reflog(ctx, q)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) Commit(ctx context.Context, h tract.Hash) (tract.Commit, error) {
	v, err := r.Reader.Commit(ctx, h)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) CommitsWithPrefix(ctx context.Context, prefix string, limit int) ([]tract.Hash, error) {
	v, err := r.Reader.CommitsWithPrefix(ctx, prefix, limit)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	v, err := r.Reader.Ancestry(ctx, heads)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) History(ctx context.Context, heads []tract.Hash, encoding string) ([]tract.HistoryCommit, error) {
	v, err := r.Reader.History(ctx, heads, encoding)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	v, err := r.Reader.Blobs(ctx, hashes, encoding)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	v, err := r.Reader.Annotations(ctx, q)
	r.rows.Add(int64(len(v)))
	return v, err
}

func (r countingReader) ScanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	return r.Reader.ScanCommits(ctx, func(v tract.Commit) error {
		r.rows.Add(1)
		return fn(v)
	})
}

func (r countingReader) ScanBlobs(ctx context.Context, fn func(tract.Blob) error) error {
	return r.Reader.ScanBlobs(ctx, func(v tract.Blob) error {
		r.rows.Add(1)
		return fn(v)
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

func (r countingReader) Settings(ctx context.Context, tractID string) ([]tract.Setting, error) {
	v, err := r.Reader.Settings(ctx, tractID)
	r.rows.Add(int64(len(v)))
	return v, err
}
