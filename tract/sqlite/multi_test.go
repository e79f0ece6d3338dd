package sqlite_test

import (
	"context"
	"fmt"

	"github.com/agentlineage/lineage/tract"
)

func runRoleMulti(ctx context.Context, r *tract.Repo, role, arg string) error {
	return fmt.Errorf("unknown role %q", role)
}
