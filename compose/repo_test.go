package compose_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// newRepo is a repository on a new SQLite store in dir with tract main,
// closed when the test ends; wrap, when given, wraps the store first.
func newRepo(tb testing.TB, dir string, wrap func(tract.Store) tract.Store) *tract.Repo {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	var s tract.Store = st
	if wrap != nil {
		s = wrap(st)
	}
	repo := tract.New(s, tract.Options{})
	if _, _, err := repo.Init(ctx); err != nil {
		tb.Fatal(err)
	}
	return repo
}
