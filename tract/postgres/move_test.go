package postgres_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// TestMoveSQLiteToPostgresAndBack: a store exported from SQLite, imported
// into PostgreSQL and exported again gives the same bytes; so does the way
// back into a new SQLite file. Every store verifies clean and a word search
// returns the same commits on all three.
func TestMoveSQLiteToPostgresAndBack(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	openSQLite := func() *tract.Repo {
		s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lineage.db"), sqlite.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return tract.New(s, tract.Options{Now: clock})
	}
	pg := tract.New(newStore(t), tract.Options{Now: clock})
	src := openSQLite()
	if _, _, err := src.Init(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.BuildExportFixture(t, src)
	var first bytes.Buffer
	if _, err := src.Export(ctx, &first, tract.ExportOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	second := storetest.RoundTrip(t, first.Bytes(), pg)
	storetest.RoundTrip(t, second, openSQLite())
	var want []tract.Hash
	for i, repo := range []*tract.Repo{src, pg} {
		found, err := repo.Find(ctx, "main", tract.FindOptions{Text: "hello", AllTracts: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []tract.Hash
		for _, f := range found {
			got = append(got, f.Commit.Hash)
		}
		if i == 0 {
			want = got
			if len(want) == 0 {
				t.Fatal("nothing found for hello")
			}
		} else if !slices.Equal(got, want) {
			t.Fatalf("find on PostgreSQL %v, on SQLite %v", got, want)
		}
	}
}
