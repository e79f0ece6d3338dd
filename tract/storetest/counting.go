package storetest

import (
	"context"
	"sync/atomic"

	"github.com/agentlineage/lineage/tract"
)

// Counting wraps a store and counts the rows its reads return (a lookup of
// one row counts one, a list its length, a scan each row it calls back
// with) and the read calls, inside transactions too: the cost of a command
// in rows and store queries, whatever the backend.
type Counting struct {
	countingReader
	store tract.Store
}

// NewCounting wraps s.
func NewCounting(s tract.Store) *Counting {
	return &Counting{countingReader: countingReader{Reader: s, rows: new(atomic.Int64), calls: new(atomic.Int64), largest: new(atomic.Int64)}, store: s}
}

// Rows returns the rows read so far and starts counting again from zero.
func (c *Counting) Rows() int64 { return c.rows.Swap(0) }

// Largest returns the most rows one list read (not a scan, which hands
// its rows out one at a time) returned so far, and starts again from
// zero: what a command held of the store's rows at once.
func (c *Counting) Largest() int64 { return c.largest.Swap(0) }

// Calls returns the read calls made so far (each one query or round trip
// of the store) and starts counting again from zero.
func (c *Counting) Calls() int64 { return c.calls.Swap(0) }

// Close closes the store.
func (c *Counting) Close() error { return c.store.Close() }

// Update counts the reads of the transaction.
func (c *Counting) Update(ctx context.Context, fn func(tract.Tx) error) error {
	return c.store.Update(ctx, func(tx tract.Tx) error {
		return fn(countingTx{Tx: tx, countingReader: countingReader{Reader: tx, rows: c.rows, calls: c.calls, largest: c.largest}})
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
func (t countingTx) TractsByID(ctx context.Context, ids []string) ([]tract.Tract, error) {
	return t.countingReader.TractsByID(ctx, ids)
}
func (t countingTx) TractSettings(ctx context.Context, q tract.SettingsQuery) ([]tract.Setting, error) {
	return t.countingReader.TractSettings(ctx, q)
}
func (t countingTx) Search(ctx context.Context, q tract.SearchQuery) ([]tract.HistoryCommit, error) {
	return t.countingReader.Search(ctx, q)
}
func (t countingTx) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	return t.countingReader.Annotations(ctx, q)
}

type countingReader struct {
	tract.Reader
	rows, calls, largest *atomic.Int64
}

// add counts the n rows of one list read.
func (r countingReader) add(n int) {
	r.rows.Add(int64(n))
	for {
		l := r.largest.Load()
		if int64(n) <= l || r.largest.CompareAndSwap(l, int64(n)) {
			return
		}
	}
}

func (r countingReader) Tract(ctx context.Context, name string) (tract.Tract, error) {
	r.calls.Add(1)
	v, err := r.Reader.Tract(ctx, name)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) TractByID(ctx context.Context, id string) (tract.Tract, error) {
	r.calls.Add(1)
	v, err := r.Reader.TractByID(ctx, id)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) Tracts(ctx context.Context) ([]tract.Tract, error) {
	r.calls.Add(1)
	v, err := r.Reader.Tracts(ctx)
	r.add(len(v))
	return v, err
}

func (r countingReader) Ref(ctx context.Context, tractID, name string) (tract.Ref, error) {
	r.calls.Add(1)
	v, err := r.Reader.Ref(ctx, tractID, name)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) Refs(ctx context.Context, tractID string) ([]tract.Ref, error) {
	r.calls.Add(1)
	v, err := r.Reader.Refs(ctx, tractID)
	r.add(len(v))
	return v, err
}

func (r countingReader) Reflog(ctx context.Context, q tract.ReflogQuery) ([]tract.ReflogEntry, error) {
	r.calls.Add(1)
	v, err := r.Reader.Reflog(ctx, q)
	r.add(len(v))
	return v, err
}

func (r countingReader) Commit(ctx context.Context, h tract.Hash) (tract.Commit, error) {
	r.calls.Add(1)
	v, err := r.Reader.Commit(ctx, h)
	if err == nil {
		r.rows.Add(1)
	}
	return v, err
}

func (r countingReader) CommitsWithPrefix(ctx context.Context, prefix string, limit int) ([]tract.Hash, error) {
	r.calls.Add(1)
	v, err := r.Reader.CommitsWithPrefix(ctx, prefix, limit)
	r.add(len(v))
	return v, err
}

func (r countingReader) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	r.calls.Add(1)
	v, err := r.Reader.Ancestry(ctx, heads)
	r.add(len(v))
	return v, err
}

func (r countingReader) History(ctx context.Context, heads []tract.Hash, encoding string) ([]tract.HistoryCommit, error) {
	r.calls.Add(1)
	v, err := r.Reader.History(ctx, heads, encoding)
	r.add(len(v))
	return v, err
}

func (r countingReader) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	r.calls.Add(1)
	v, err := r.Reader.Blobs(ctx, hashes, encoding)
	r.add(len(v))
	return v, err
}

func (r countingReader) Annotations(ctx context.Context, q tract.AnnotationQuery) ([]tract.Annotation, error) {
	r.calls.Add(1)
	v, err := r.Reader.Annotations(ctx, q)
	r.add(len(v))
	return v, err
}

func (r countingReader) ScanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	r.calls.Add(1)
	return r.Reader.ScanCommits(ctx, func(v tract.Commit) error {
		r.rows.Add(1)
		return fn(v)
	})
}

func (r countingReader) ScanBlobs(ctx context.Context, fn func(tract.Blob) error) error {
	r.calls.Add(1)
	return r.Reader.ScanBlobs(ctx, func(v tract.Blob) error {
		r.rows.Add(1)
		return fn(v)
	})
}

func (r countingReader) Settings(ctx context.Context, tractID string) ([]tract.Setting, error) {
	r.calls.Add(1)
	v, err := r.Reader.Settings(ctx, tractID)
	r.add(len(v))
	return v, err
}

func (r countingReader) TractsByID(ctx context.Context, ids []string) ([]tract.Tract, error) {
	r.calls.Add(1)
	v, err := r.Reader.TractsByID(ctx, ids)
	r.add(len(v))
	return v, err
}

func (r countingReader) TractSettings(ctx context.Context, q tract.SettingsQuery) ([]tract.Setting, error) {
	r.calls.Add(1)
	v, err := r.Reader.TractSettings(ctx, q)
	r.add(len(v))
	return v, err
}

func (r countingReader) Search(ctx context.Context, q tract.SearchQuery) ([]tract.HistoryCommit, error) {
	r.calls.Add(1)
	v, err := r.Reader.Search(ctx, q)
	r.add(len(v))
	return v, err
}

// FirstParents is the store's (tract.ChainReader), or none: the chain is
// then read a commit at a time.
func (r countingReader) FirstParents(ctx context.Context, top tract.Hash, n int, encoding string) ([]tract.HistoryCommit, error) {
	r.calls.Add(1)
	cr, ok := r.Reader.(tract.ChainReader)
	if !ok {
		return nil, nil
	}
	v, err := cr.FirstParents(ctx, top, n, encoding)
	r.add(len(v))
	return v, err
}

// WalkPointers is the store's (tract.PointerWalker), counting a row for
// each commit the walk visits; on a store without one it reports an
// unknown position, and the walk is made a commit at a time.
func (r countingReader) WalkPointers(ctx context.Context, from tract.Hash, steps string) (tract.Hash, tract.Position, int, error) {
	r.calls.Add(1)
	pw, ok := r.Reader.(tract.PointerWalker)
	if !ok {
		return from, tract.Position{}, 0, nil
	}
	at, pos, taken, err := pw.WalkPointers(ctx, from, steps)
	if err == nil {
		r.add(taken + 1)
	}
	return at, pos, taken, err
}
