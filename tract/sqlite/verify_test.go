package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestVerifyFindsDamage tampers with rows behind the store's back (foreign
// keys off) and expects verify to list every problem.
func TestVerifyFindsDamage(t *testing.T) {
	ctx := context.Background()
	db, r, _ := newDB(t)
	var hashes []tract.Hash
	for _, text := range []string{"one", "two", "three", "four"} {
		c, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, c.Hash)
	}
	e, err := r.Edit(ctx, "main", string(hashes[0]), "ONE", "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=foreign_keys(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	c1, _ := r.Store().Commit(ctx, hashes[1])
	c2, _ := r.Store().Commit(ctx, hashes[2])
	for _, q := range []string{
		`UPDATE blobs SET data = '{"type":"message","role":"user","text":"forged"}' WHERE hash = (SELECT content FROM commits WHERE hash = unhex('` + string(hashes[1]) + `'))`,
		`UPDATE commits SET message = 'rewritten' WHERE hash = unhex('` + string(hashes[3]) + `')`,
		`DELETE FROM blobs WHERE hash = unhex('` + string(c2.Content) + `')`,

		`DELETE FROM commits WHERE hash = unhex('` + string(hashes[0]) + `')`,
		`INSERT INTO refs (tract, name, value) SELECT tract, 'ghost', 'deadbeef' FROM refs LIMIT 1`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rep, err := r.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Damage {
		got = append(got, d.Kind+" "+d.Object[:8]+": "+d.Detail[:min(len(d.Detail), 24)])
	}
	want := []string{
		"blob " + c1.Content.Short() + ": content hashes to",
		"commit " + hashes[3].Short() + ": fields hash to",
		"content " + hashes[2].Short() + ": blob",
		"edit-target " + e.Hash.Short() + ": edit target",
		"parent " + hashes[1].Short() + ": parent 0",
		"ref ",
	}
	text := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("verify did not report %q; got:\n%s", w, text)
		}
	}
	if len(rep.Damage) != 6 {
		t.Errorf("got %d problems, want 6:\n%s", len(rep.Damage), text)
	}
}

// TestSchemaVersion: a new store records the schema version; a store from a
// newer lineage is refused rather than misread.
func TestSchemaVersion(t *testing.T) {
	db, _, s := newDB(t)
	s.Close()
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v int
	if err := raw.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, sqlite.SchemaVersion)
	}
	if _, err := raw.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(context.Background(), db, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer than this lineage understands") {
		t.Fatalf("open of a newer store: %v", err)
	}
	if _, err := sqlite.Open(context.Background(), db+"-missing", sqlite.Options{}); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("open of a missing store: %v", err)
	}
}
