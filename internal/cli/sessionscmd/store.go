package sessionscmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// storeFlags select the sessions store.
type storeFlags struct {
	store string
	// lock is the import lock of the store opened (see
	// [clienv.SessionsStore]).
	lock string
}

func (f *storeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.store, "store", "", "the store to use (an SQLite path or a postgres:// URL; default LINEAGE_SESSIONS_STORE, then LINEAGE_STORE, else the user's sessions store)")
}

// open opens the sessions store ([clienv.OpenSessions]): --store,
// LINEAGE_SESSIONS_STORE, LINEAGE_STORE, or the user's store. A read of a
// store not made yet finds no sessions: nil repo, no error.
func (f *storeFlags) open(ctx context.Context, env *clienv.Env, write bool) (*tract.Repo, func(), error) {
	st, err := clienv.OpenSessions(ctx, env, f.store, write)
	if err != nil {
		return nil, nil, err
	}
	f.lock = st.Lock
	return st.Repo, st.Close, nil
}

// session opens the store for reading and looks up the session ref names:
// the store, the session and the function that closes the store. A store
// not made yet has no sessions; on any error the store is closed.
func (f *storeFlags) session(ctx context.Context, env *clienv.Env, ref string) (*tract.Repo, sessions.Info, func(), error) {
	repo, done, err := f.open(ctx, env, false)
	if err != nil {
		return nil, sessions.Info{}, nil, err
	}
	if repo == nil {
		done()
		return nil, sessions.Info{}, nil, fmt.Errorf("session %q: no sessions imported", ref)
	}
	info, err := sessions.Lookup(ctx, repo, ref)
	if err != nil {
		done()
		return nil, sessions.Info{}, nil, clienv.TractErr(err)
	}
	return repo, info, done, nil
}
