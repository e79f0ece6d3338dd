package mcpcmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/mcpserver"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// mcpTractStore opens the tract store for the MCP server the way the tract
// commands do (--store, LINEAGE_STORE, else the nearest .lineage/lineage.db
// upward from the server's working directory), on the first tract call, and
// closes it when the server stops.
type mcpTractStore struct {
	env   *clienv.Env
	cwd   string // the server's working directory
	store string
	mu    sync.Mutex
	open  io.Closer
	repo  *tract.Repo
}

func newMCPTractStore(env *clienv.Env, f *mcpFlags, cwd string) *mcpTractStore {
	return &mcpTractStore{env: env, cwd: cwd, store: mcpStoreFlag(env, f)}
}

// mcpStoreFlag is --store with a relative path made absolute against the
// process directory, as for every other path flag.
func mcpStoreFlag(env *clienv.Env, f *mcpFlags) string {
	if f.store == "" || strings.Contains(f.store, "://") {
		return f.store
	}
	return "sqlite:" + fsx.Abs(env.Dir, strings.TrimPrefix(f.store, "sqlite:"))
}

func (m *mcpTractStore) opener() mcpserver.TractOpener {
	return func(ctx context.Context) (*tract.Repo, error) {
		url, err := m.env.Host().StoreURL(m.store, m.cwd)
		if err != nil {
			return nil, err
		}
		repo, _, err := clienv.OpenRepo(ctx, m.env, m.cwd, url, stores.Options{})
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		m.open, m.repo = repo.Store(), repo
		m.mu.Unlock()
		return repo, nil
	}
}

func (m *mcpTractStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.open == nil {
		return nil
	}
	// The checkpoint the server may be writing in the background first.
	m.repo.Wait()
	return m.open.Close()
}

// mcpStateDir is the directory of the store (where a stateless server keeps
// its shared instruction session): the directory of an SQLite store, else
// .lineage in the working directory.
func mcpStateDir(env *clienv.Env, f *mcpFlags, cwd string) string {
	url := mcpStoreFlag(env, f)
	if url == "" {
		url = env.Host().StoreSetting("")
	}
	if url == "" {
		if p, ok := stores.Locate(cwd); ok {
			return filepath.Dir(p)
		}
	} else if loc, err := stores.Parse(url, env.Dir); err == nil && loc.Driver == stores.SQLite {
		return filepath.Dir(loc.Path)
	}
	return filepath.Join(cwd, stores.DirName)
}

// sessionsOpener opens the sessions store as `lineage sessions list` does
// (LINEAGE_STORE, else the user's store under the state directory),
// read-only, for one call.
func sessionsOpener(env *clienv.Env) mcpserver.SessionsOpener { return openSessions(env, false) }

// sessionsWriter opens the sessions store for a write (session_handoff),
// as `lineage handoff` does, for one call.
func sessionsWriter(env *clienv.Env) mcpserver.SessionsOpener { return openSessions(env, true) }

func openSessions(env *clienv.Env, write bool) mcpserver.SessionsOpener {
	return func(ctx context.Context) (*tract.Repo, func(), error) {
		s, err := clienv.OpenSessions(ctx, env, "", write)
		if err != nil {
			return nil, nil, err
		}
		if s.Repo == nil {
			return nil, nil, nil
		}
		return s.Repo, s.Close, nil
	}
}
