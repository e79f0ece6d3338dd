package sessionscmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// storeFlags select the sessions store.
type storeFlags struct {
	store string
	// lock is the import lock of the store opened (see lockPath).
	lock string
}

func (f *storeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.store, "store", "", "the store to use (an SQLite path or a postgres:// URL; default LINEAGE_STORE, else the user's sessions store)")
}

// DefaultStore is the user's sessions store: lineage/sessions/sessions.db under the
// state directory.
func DefaultStore(env *clienv.Env) (string, error) {
	p := env.Host().StatePath("sessions", "sessions.db")
	if p == "" {
		return "", env.Host().StateDirError()
	}
	return p, nil
}

// open opens the sessions store: --store, LINEAGE_STORE, or the user's
// store, created on a write with a 0700 folder and a 0600 file (its
// transcripts are the user's conversations). A read of a store not made
// yet finds no sessions: nil repo, no error.
func (f *storeFlags) open(ctx context.Context, env *clienv.Env, write bool) (*tract.Repo, func(), error) {
	url := env.Host().StoreSetting(f.store)
	if url == "" {
		p, err := DefaultStore(env)
		if err != nil {
			return nil, nil, clienv.UsageError("no sessions store: %v (pass --store or set LINEAGE_STORE)", err)
		}
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) && !write {
			return nil, func() {}, nil
		}
		if err := privateFile(p); err != nil {
			return nil, nil, err
		}
		url = p
	}
	f.lock = lockPath(env, url)
	repo, _, err := clienv.OpenRepo(ctx, env, env.Dir, url, stores.Options{Create: write, ReadOnly: !write})
	if errors.Is(err, tract.ErrNotFound) && !write {
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return repo, func() { repo.Wait(); repo.Store().Close() }, nil
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

// lockPath is the file an import locks: beside an SQLite store, else (a
// PostgreSQL URL) in the user's state directory, named by the URL's hash.
func lockPath(env *clienv.Env, url string) string {
	loc, err := stores.Parse(url, env.Dir)
	if err == nil && loc.Driver == stores.SQLite {
		return loc.Path + ".import.lock"
	}
	dir := env.Host().StatePath("sessions")
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(url))
	if os.MkdirAll(dir, 0o700) != nil {
		return ""
	}
	return filepath.Join(dir, "import-"+hex.EncodeToString(sum[:8])+".lock")
}
