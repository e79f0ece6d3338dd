package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// TestBulkCache: a transaction that writes like an import runs with the
// bulk page cache, and every connection has the writable handle's cache
// again afterwards, whether the transaction committed or rolled back.
func TestBulkCache(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "lineage.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cacheOf := func(q querier) int {
		var kib int
		if err := q.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&kib); err != nil {
			t.Fatal(err)
		}
		return kib
	}
	blobs := func(n, from int) []tract.Blob {
		out := make([]tract.Blob, n)
		for i := range out {
			b, err := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("m", from+i)})
			if err != nil {
				t.Fatal(err)
			}
			out[i] = b
		}
		return out
	}
	failed := errors.New("failed")
	for _, tc := range []struct {
		n    int
		fail error
		want int
	}{{10, nil, writeCacheKiB}, {bulkRows, nil, bulkCacheKiB}, {bulkRows, failed, bulkCacheKiB}} {
		err := s.Update(ctx, func(tx tract.Tx) error {
			if err := tx.PutBlobs(ctx, blobs(tc.n, tc.n)...); err != nil {
				return err
			}
			if got := cacheOf(tx.(*txn).q); got != tc.want {
				t.Errorf("%d blobs: cache %d KiB during the transaction, want %d", tc.n, got, tc.want)
			}
			return tc.fail
		})
		if err != tc.fail {
			t.Fatal(err)
		}
		// Every connection of the pool (all are held at once, so each
		// one that exists is among them).
		conns := make([]querier, 0, 4)
		for range 4 {
			c, err := s.DB().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns = append(conns, c)
		}
		for i, c := range conns {
			if got := cacheOf(c); got != writeCacheKiB {
				t.Errorf("%d blobs, error %v: connection %d kept a cache of %d KiB", tc.n, tc.fail, i, got)
			}
		}
		for _, c := range conns {
			c.(interface{ Close() error }).Close()
		}
	}
}

// TestInsertColumns: rows go in whatever mix of NULL, shared and varying
// values their columns hold, over several statements, and a row that
// conflicts is left out of the count.
func TestInsertColumns(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "lineage.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE t (k INTEGER PRIMARY KEY, a TEXT, b BLOB, c INTEGER, d TEXT)`); err != nil {
		t.Fatal(err)
	}
	type row struct {
		k       int64
		a       any // one text in every row
		b       any // NULL in every row
		c       any // varying, NULL in some
		d       any // the same in the first rows only
		present bool
	}
	var rows []row
	for i := range 7 {
		r := row{k: int64(i + 1), a: "shared", c: any(int64(i * 10)), d: "x"}
		if i%3 == 0 {
			r.c = nil
		}
		if i >= 4 {
			r.d = "y"
		}
		rows = append(rows, r)
	}
	flat := func(rs []row) []any {
		var out []any
		for _, r := range rs {
			out = append(out, r.k, r.a, r.b, r.c, r.d)
		}
		return out
	}
	names := []string{"k", "a", "b", "c", "d"}
	err = s.Update(ctx, func(tx tract.Tx) error {
		tt := tx.(*txn)
		n, err := tt.insertColumns(ctx, `INSERT INTO t`, names, `ON CONFLICT DO NOTHING`, 3, flat(rows))
		if err != nil || n != 7 {
			t.Fatalf("inserted %d rows (%v), want 7", n, err)
		}
		// Row 2 again, with a new one: one row changed.
		n, err = tt.insertColumns(ctx, `INSERT INTO t`, names, `ON CONFLICT DO NOTHING`, 3, flat([]row{rows[1], {k: 8, a: "other", c: int(5)}}))
		if err != nil || n != 1 {
			t.Fatalf("inserted %d rows (%v), want 1", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows = append(rows, row{k: 8, a: "other", c: int64(5)})
	got, err := s.DB().QueryContext(ctx, `SELECT k, a, b, c, d FROM t ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	i := 0
	for ; got.Next(); i++ {
		var r row
		if err := got.Scan(&r.k, &r.a, &r.b, &r.c, &r.d); err != nil {
			t.Fatal(err)
		}
		if w := rows[i]; fmt.Sprintf("%v %v %v %v %v", r.k, r.a, r.b, r.c, r.d) != fmt.Sprintf("%v %v %v %v %v", w.k, w.a, w.b, w.c, w.d) {
			t.Errorf("row %d: %v %v %v %v %v, want %v %v %v %v %v", i, r.k, r.a, r.b, r.c, r.d, w.k, w.a, w.b, w.c, w.d)
		}
	}
	if i != len(rows) {
		t.Fatalf("%d rows stored, want %d", i, len(rows))
	}
}
