package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestMain lets the test binary act as a writer process on one schema of
// the test server.
func TestMain(m *testing.M) {
	storetest.ProcessMain(m, func(ctx context.Context, schema string) (tract.Store, error) {
		cfg, err := pgxpool.ParseConfig(os.Getenv("LINEAGE_TEST_POSTGRES"))
		if err != nil {
			return nil, err
		}
		return postgres.OpenConfig(ctx, withSchema(cfg, schema), postgres.Options{MaxConns: 2})
	})
}

// TestProcesses: 8 processes × 200 appends to one branch through PostgreSQL
// → 1,600 commits on one first-parent chain; appends while another process
// loops merge-from and gc lose nothing.
func TestProcesses(t *testing.T) {
	storetest.RunProcesses(t, storetest.Processes{
		Writers: 8,
		Appends: 200,
		New: func(t *testing.T) (string, tract.Store) {
			cfg, schema := freshSchema(t)
			return schema, openIn(t, cfg, postgres.Options{Create: true})
		},
	})
}
