package postgres_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// propertyChecks is how many cases each rapid property of the store suite
// runs here unless -rapid.checks says otherwise. The SQLite store runs
// rapid's 100 over the same properties, whose histories exercise the same
// tract code; here they check the store under it, and each case is a fresh
// schema and hundreds of round trips (100 cases took 5 of the package's
// first 9 minutes on a loaded machine, near go test's 10-minute limit).
const propertyChecks = "25"

// TestMain lets the test binary act as a writer process on one schema of
// the test server.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		if err := flag.Set("rapid.checks", propertyChecks); err != nil {
			panic(err)
		}
	}
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
