package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/mcpserver"
	"github.com/agentlineage/lineage/tract"
)

// mcpTractStore opens the tract store for the MCP server the way the tract
// commands do (--store, LINEAGE_STORE, else the nearest .lineage/lineage.db
// upward from the server's working directory), on the first tract call, and
// closes it when the server stops.
type mcpTractStore struct {
	env   *Env // Dir is the server's working directory
	store string
	mu    sync.Mutex
	open  io.Closer
}

func newMCPTractStore(env *Env, f *mcpFlags, cwd string) *mcpTractStore {
	at := *env
	at.Dir = cwd
	store := f.store
	if store != "" && !strings.Contains(store, "://") {
		// A relative path is relative to the process directory, as for
		// every other path flag.
		store = "sqlite:" + fsx.Abs(env.Dir, strings.TrimPrefix(store, "sqlite:"))
	}
	return &mcpTractStore{env: &at, store: store}
}

func (m *mcpTractStore) opener() mcpserver.TractOpener {
	return func(ctx context.Context) (*tract.Repo, error) {
		tf := &tractFlags{store: m.store}
		url, err := tf.storeURL(m.env)
		if err != nil {
			return nil, err
		}
		now, err := tractClock(m.env)
		if err != nil {
			return nil, err
		}
		s, where, err := tractOpenStore(ctx, m.env, url, false, false)
		if err != nil {
			if errors.Is(err, tract.ErrNotFound) {
				return nil, fmt.Errorf("no tract store at %s: run 'lineage tract init' first", where)
			}
			return nil, err
		}
		m.mu.Lock()
		m.open = s
		m.mu.Unlock()
		return tract.New(s, tract.Options{Now: now}), nil
	}
}

func (m *mcpTractStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.open == nil {
		return nil
	}
	return m.open.Close()
}

// mcpTractName is --tract, else LINEAGE_TRACT, else main.
func mcpTractName(env *Env, f *mcpFlags) string {
	return (&tractFlags{tract: f.tract}).tractName(env)
}
