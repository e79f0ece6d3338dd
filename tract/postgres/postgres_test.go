package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	serverOnce sync.Once
	serverCfg  *pgxpool.Config
	serverErr  error
)

// server is the configuration of the test server: LINEAGE_TEST_POSTGRES
// (a URL) or the PG* environment variables. Without a reachable server the
// test skips, unless LINEAGE_REQUIRE_POSTGRES=1 asks it to fail.
func server(t testing.TB) *pgxpool.Config {
	t.Helper()
	serverOnce.Do(func() {
		serverCfg, serverErr = pgxpool.ParseConfig(os.Getenv("LINEAGE_TEST_POSTGRES"))
		if serverErr != nil {
			return
		}
		if serverCfg.ConnConfig.ConnectTimeout == 0 {
			serverCfg.ConnConfig.ConnectTimeout = 5 * time.Second
		}
		var conn *pgx.Conn
		if conn, serverErr = pgx.ConnectConfig(context.Background(), serverCfg.ConnConfig); serverErr == nil {
			conn.Close(context.Background())
		}
	})
	if serverErr != nil {
		if os.Getenv("LINEAGE_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("LINEAGE_REQUIRE_POSTGRES=1 but no PostgreSQL server is reachable: %v", serverErr)
		}
		t.Skipf("no PostgreSQL server reachable (set PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE or LINEAGE_TEST_POSTGRES; "+
			"LINEAGE_REQUIRE_POSTGRES=1 turns this skip into a failure): %v", serverErr)
	}
	return serverCfg
}

// adminExec runs statements on a connection of its own.
func adminExec(t testing.TB, cfg *pgxpool.Config, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// freshSchema makes a schema of a random name, dropped when the test ends,
// and returns the server configuration with it as search_path.
func freshSchema(t testing.TB) (*pgxpool.Config, string) {
	t.Helper()
	cfg := server(t)
	var b [6]byte
	rand.Read(b[:])
	name := "lineage_test_" + hex.EncodeToString(b[:])
	adminExec(t, cfg, `CREATE SCHEMA `+name)
	t.Cleanup(func() { adminExec(t, cfg, `DROP SCHEMA `+name+` CASCADE`) })
	return withSchema(cfg, name), name
}

func withSchema(cfg *pgxpool.Config, schema string) *pgxpool.Config {
	c := cfg.Copy()
	c.ConnConfig.RuntimeParams["search_path"] = schema
	return c
}

func openIn(t testing.TB, cfg *pgxpool.Config, o postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenConfig(context.Background(), cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newStore(t *testing.T) tract.Store {
	cfg, _ := freshSchema(t)
	return openIn(t, cfg, postgres.Options{Create: true})
}

func TestStore(t *testing.T) {
	server(t)
	storetest.Run(t, newStore)
}

var _ storetest.Reopener = (*postgres.Store)(nil)
