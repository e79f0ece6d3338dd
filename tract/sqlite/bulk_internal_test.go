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
