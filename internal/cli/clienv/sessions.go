package clienv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// SessionsStore is the store harness sessions are imported and recorded
// into: flag (--store), else LINEAGE_SESSIONS_STORE, else LINEAGE_STORE,
// else the user's own store under the state directory (see
// [DefaultSessionsStore]).
type SessionsStore struct {
	Repo *tract.Repo
	// Lock is the file an import holds for its whole run (see LockPath in
	// sessions.Importer); "" when there is no state directory for it.
	Lock  string
	close func()
}

// Close closes the store.
func (s *SessionsStore) Close() {
	if s != nil && s.close != nil {
		s.close()
	}
}

// DefaultSessionsStore is the user's sessions store:
// <state dir>/sessions/sessions.db.
func DefaultSessionsStore(env *Env) (string, error) {
	p := env.Host().StatePath("sessions", "sessions.db")
	if p == "" {
		return "", env.Host().StateDirError()
	}
	return p, nil
}

// OpenSessions opens the sessions store, created on a write with a 0700
// folder and a 0600 file (it holds the user's conversations). A read of
// a store not made yet finds no sessions: a nil Repo, no error.
func OpenSessions(ctx context.Context, env *Env, flag string, write bool) (*SessionsStore, error) {
	url := env.Host().SessionsStoreSetting(flag)
	if url == "" {
		p, err := DefaultSessionsStore(env)
		if err != nil {
			return nil, UsageError("no sessions store: %v (pass --store or set LINEAGE_SESSIONS_STORE)", err)
		}
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) && !write {
			return &SessionsStore{}, nil
		}
		if err := privateFile(p); err != nil {
			return nil, err
		}
		url = p
	}
	loc, err := stores.Parse(url, env.Dir)
	if err != nil {
		return nil, err
	}
	// A read of a store not made yet finds no sessions, wherever it was
	// named (the default path, --store or a variable).
	if loc.Driver == stores.SQLite && !write {
		if _, err := os.Stat(loc.Path); errors.Is(err, os.ErrNotExist) {
			return &SessionsStore{}, nil
		}
	}
	repo, _, err := OpenRepoAt(ctx, env, loc, stores.Options{Create: write, ReadOnly: !write})
	if err != nil {
		return nil, err
	}
	return &SessionsStore{Repo: repo, Lock: sessionsLock(env, loc, url), close: func() { repo.Wait(); repo.Store().Close() }}, nil
}

// privateFile makes p's folder (0700) and p itself (0600) when missing.
func privateFile(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// sessionsLock is the file an import locks: beside an SQLite store, else
// (a PostgreSQL URL) in the state directory, named by the URL's hash.
func sessionsLock(env *Env, loc stores.Location, url string) string {
	if loc.Driver == stores.SQLite {
		return loc.Path + ".import.lock"
	}
	dir := env.Host().StatePath("sessions")
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(dir, "import-"+hex.EncodeToString(sum[:8])+".lock")
}
