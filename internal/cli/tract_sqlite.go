package cli

import (
	"context"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

func tractOpenSQLite(ctx context.Context, path string, create, readOnly bool) (tract.Store, error) {
	return sqlite.Open(ctx, path, sqlite.Options{Create: create, ReadOnly: readOnly})
}
