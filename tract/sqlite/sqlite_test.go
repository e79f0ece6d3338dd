package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

func newStore(t *testing.T) tract.Store {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) { storetest.Run(t, newStore) }
