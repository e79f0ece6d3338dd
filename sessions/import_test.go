package sessions

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// testClock moves one second per reading, from a fixed time.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func newRepo(t testing.TB) (*tract.Repo, tract.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "store.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &testClock{now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	return tract.New(st, tract.Options{Now: c.Now}), st
}

func TestImportClaudeFixtures(t *testing.T) {
	dir := unpack(t, "claude")
	repo, _ := newRepo(t)
	ctx := context.Background()
	var srcs []Source
	for _, p := range transcripts(t, filepath.Join(dir, "claude-2.1.332")) {
		srcs = append(srcs, Source{Harness: Claude, Path: p})
	}
	im := &Importer{Repo: repo}
	rep, err := im.Import(ctx, srcs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Sessions {
		t.Logf("%+v", s)
	}
	rep2, err := im.Import(ctx, srcs)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Added != 0 {
		t.Errorf("re-import added %d", rep2.Added)
	}
}
