package postgres_test

import (
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
)

// BenchmarkStore runs the shared tract benchmarks against the PostgreSQL
// server of the tests (over loopback under pg_virtualenv), each store in a
// fresh schema, so the numbers sit next to tract/sqlite's.
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) tract.Store {
		cfg, _ := freshSchema(b)
		return openIn(b, cfg, postgres.Options{Create: true})
	})
}
