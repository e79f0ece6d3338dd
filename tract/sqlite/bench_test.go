package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// BenchmarkStore runs the shared tract benchmarks (storetest.Bench) on a
// fresh SQLite file each.
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) tract.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "lineage.db"), sqlite.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
