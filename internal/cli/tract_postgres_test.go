package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestTractPostgresScripts runs testdata/postgres/*.txtar against the
// PostgreSQL server of LINEAGE_TEST_POSTGRES or the PG* variables, each
// script in a fresh schema whose URL is $LINEAGE_TEST_POSTGRES_URL. Without
// a server it skips, unless LINEAGE_REQUIRE_POSTGRES=1.
func TestTractPostgresScripts(t *testing.T) {
	cfg, err := pgx.ParseConfig(os.Getenv("LINEAGE_TEST_POSTGRES"))
	if err == nil {
		if cfg.ConnectTimeout == 0 {
			cfg.ConnectTimeout = 5 * time.Second
		}
		var conn *pgx.Conn
		if conn, err = pgx.ConnectConfig(context.Background(), cfg); err == nil {
			conn.Close(context.Background())
		}
	}
	if err != nil {
		if os.Getenv("LINEAGE_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("LINEAGE_REQUIRE_POSTGRES=1 but no PostgreSQL server is reachable: %v", err)
		}
		t.Skipf("no PostgreSQL server reachable (set PG* or LINEAGE_TEST_POSTGRES; LINEAGE_REQUIRE_POSTGRES=1 turns this skip into a failure): %v", err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/postgres",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			for _, k := range []string{"NO_COLOR", "LINEAGE_STORE", "LINEAGE_TRACT", "LINEAGE_NOW"} {
				e.Setenv(k, "")
			}
			var b [6]byte
			rand.Read(b[:])
			schema := "lineage_script_" + hex.EncodeToString(b[:])
			if err := tractPostgresAdmin(cfg, `CREATE SCHEMA `+schema); err != nil {
				return err
			}
			e.Defer(func() { tractPostgresAdmin(cfg, `DROP SCHEMA `+schema+` CASCADE`) })
			e.Setenv("LINEAGE_TEST_POSTGRES_URL", tractPostgresTestURL(cfg, schema))
			return nil
		},
	})
}

func tractPostgresAdmin(cfg *pgx.ConnConfig, stmt string) error {
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

// tractPostgresTestURL spells cfg as a postgres:// URL using schema.
func tractPostgresTestURL(cfg *pgx.ConnConfig, schema string) string {
	u := neturl.URL{Scheme: "postgres", User: neturl.UserPassword(cfg.User, cfg.Password), Path: "/" + cfg.Database}
	q := neturl.Values{"search_path": {schema}}
	if strings.HasPrefix(cfg.Host, "/") {
		q.Set("host", cfg.Host)
		q.Set("port", strconv.Itoa(int(cfg.Port)))
	} else {
		u.Host = cfg.Host + ":" + strconv.Itoa(int(cfg.Port))
	}
	if cfg.TLSConfig == nil {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String()
}
