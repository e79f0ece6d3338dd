package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// trustStore is a store with a short history and no compile checkpoint
// (the compile that follows builds from the rows).
func trustStore(t *testing.T) (string, *tract.Repo) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(context.Background(), p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := tract.New(s, tract.Options{NoCheckpoints: true})
	if _, _, err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three"} {
		if _, err := r.Commit(context.Background(), "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	return p, r
}

func rawExec(t *testing.T, p, query string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+p+"?_pragma=foreign_keys(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query); err != nil {
		t.Fatal(err)
	}
}

// TestCompileTrustsNoRow: a commit row changed behind lineage's back (a
// parent rewired to skip a commit, a bogus operation, contents swapped
// between two commits) is refused by compile with ErrDamaged naming the
// commit, like damaged content; the store a new process opens has no
// checkpoint to hide it.
func TestCompileTrustsNoRow(t *testing.T) {
	ctx := context.Background()
	for name, query := range map[string]string{
		"rewired parent": `UPDATE commits SET parents = (SELECT parents FROM commits WHERE seq = 2), first_parent = (SELECT first_parent FROM commits WHERE seq = 2) WHERE seq = 3`,
		"bogus op":       `UPDATE commits SET operation = 'merge' WHERE seq = 2`,
		"swapped content": `UPDATE commits SET content = (SELECT content FROM commits WHERE seq = 1), content_id = (SELECT content_id FROM commits WHERE seq = 1) WHERE seq = 3;
			UPDATE commits SET content = (SELECT hash FROM blobs WHERE id = 3), content_id = 3 WHERE seq = 1`,
	} {
		t.Run(name, func(t *testing.T) {
			p, r := trustStore(t)
			rawExec(t, p, query)
			_, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
			var ce *tract.CommitIntegrityError
			if !errors.Is(err, tract.ErrDamaged) || !errors.As(err, &ce) || !strings.Contains(err.Error(), "refusing to compile") {
				t.Fatalf("compile: %v; want a CommitIntegrityError", err)
			}
		})
	}
}

// TestVerifyTrustsNoRow: verify reports what SQLite's integrity_check
// finds (an index out of step with its table, which no scan of commits or
// blobs reads) and a negative token count, exit 3 in the CLI.
func TestVerifyTrustsNoRow(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		query, kind string
	}{
		"index":           {`PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE INDEX reflog_time ON reflog(seq)' WHERE name = 'reflog_time'; PRAGMA writable_schema = OFF;`, "database"},
		"negative tokens": {`UPDATE blobs SET tokens_o200k = -5 WHERE id = 1`, "tokens"},
		"json tokens":     {`UPDATE blobs SET tokens = '{"p50k_base":-1}' WHERE id = 2`, "tokens"},
	} {
		t.Run(name, func(t *testing.T) {
			p, _ := trustStore(t)
			rawExec(t, p, tc.query)
			s, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rep, err := tract.New(s, tract.Options{}).Verify(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Damage) == 0 || rep.Damage[0].Kind != tc.kind {
				t.Fatalf("verify: %+v; want %s damage", rep.Damage, tc.kind)
			}
		})
	}
}
