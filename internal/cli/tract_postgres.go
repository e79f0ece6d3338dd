package cli

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
)

func init() {
	tractOpeners["postgres"] = tractOpenPostgres
	tractOpeners["postgresql"] = tractOpenPostgres
}

// tractOpenPostgres opens a postgres:// store; create makes the schema.
func tractOpenPostgres(ctx context.Context, url string, create, readOnly bool) (tract.Store, error) {
	s, err := postgres.Open(ctx, url, postgres.Options{Create: create, ReadOnly: readOnly})
	if err != nil && !errors.Is(err, tract.ErrNotFound) {
		return nil, fmt.Errorf("store %s: %w", tractRedactURL(url), err)
	}
	return s, err
}

// tractPostgresPoolURL applies --pool-size to a postgres:// URL as its
// pool_max_conns parameter.
func tractPostgresPoolURL(url string, size int) (string, error) {
	if size == 0 {
		return url, nil
	}
	if size < 0 {
		return "", usageError("--pool-size %d: want a positive number of connections", size)
	}
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return "", usageError("--pool-size applies to PostgreSQL stores (postgres://…) only")
	}
	u, err := neturl.Parse(url)
	if err != nil {
		return "", fmt.Errorf("store %s: %w", tractRedactURL(url), err)
	}
	q := u.Query()
	q.Set("pool_max_conns", strconv.Itoa(size))
	u.RawQuery = q.Encode()
	return u.String(), nil
}
