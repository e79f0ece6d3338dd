package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

// tractFlags are the flags every tract command shares.
type tractFlags struct {
	store string
	tract string
	// poolSize caps a PostgreSQL store's connection pool (0: the URL's
	// pool_max_conns or the driver's default).
	poolSize int
}

func newTractCmd(env *Env) *cobra.Command {
	cmd := groupCmd("tract", "Version-controlled LLM context: commits, branches, compile",
		`A tract is one agent's context history: a DAG of commits holding messages,
instructions and tool calls. Compile turns a head into the message list an
LLM receives, under an optional token budget.

Store: --store URL or LINEAGE_STORE (sqlite:PATH, a plain path, postgres://…);
default: the nearest .lineage/lineage.db upward from the working directory.
Tract: --tract NAME or LINEAGE_TRACT, default main.
Refs: full hash, unique prefix (4+ characters), branch, HEAD, HEAD~N, TRACT:REF.`)
	f := &tractFlags{}
	cmd.PersistentFlags().StringVar(&f.store, "store", "", "store URL or path (default: LINEAGE_STORE, then the nearest .lineage/lineage.db)")
	cmd.PersistentFlags().StringVar(&f.tract, "tract", "", "tract name (default: LINEAGE_TRACT, then main)")
	cmd.PersistentFlags().IntVar(&f.poolSize, "pool-size", 0, "PostgreSQL stores: most connections this process opens (default: the URL's pool_max_conns, else max(4, CPUs))")
	cmd.AddCommand(
		newTractInitCmd(env, f), newTractNewCmd(env, f), newTractListCmd(env, f), newTractRmCmd(env, f),
		newTractCommitCmd(env, f), newTractImportCmd(env, f), newTractEditCmd(env, f), newTractAnnotateCmd(env, f),
		newTractLogCmd(env, f), newTractShowCmd(env, f), newTractCompileCmd(env, f), newTractBlameCmd(env, f),
		newTractBranchCmd(env, f), newTractSwitchCmd(env, f), newTractCheckoutCmd(env, f), newTractResetCmd(env, f),
		newTractMergeCmd(env, f), newTractCherryPickCmd(env, f),
		newTractSpawnCmd(env, f), newTractMergeFromCmd(env, f),
		newTractGCCmd(env, f), newTractVerifyCmd(env, f),
	)
	return cmd
}

// tractOpener opens a store from its URL; create asks for a new one,
// readOnly for a handle that never writes (nor creates or migrates a schema).
type tractOpener func(ctx context.Context, url string, create, readOnly bool) (tract.Store, error)

// tractOpeners maps URL schemes to store openers. A backend adds itself from
// its own file, e.g. internal/cli/tract_postgres.go:
//
//	func init() { tractOpeners["postgres"] = openPostgres; tractOpeners["postgresql"] = openPostgres }
var tractOpeners = map[string]tractOpener{
	"sqlite": tractOpenSQLite,
}

// tractSession is an open store with the repo and tract a command works on.
type tractSession struct {
	store tract.Store
	repo  *tract.Repo
	tract string
	// where names the store for messages.
	where string
}

func (s *tractSession) Close() error { return s.store.Close() }

// tractClock is LINEAGE_NOW (RFC 3339) when set, for reproducible tests,
// else the environment's clock.
func tractClock(env *Env) (func() time.Time, error) {
	v := strings.TrimSpace(env.Getenv("LINEAGE_NOW"))
	if v == "" {
		return env.Clock(), nil
	}
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, usageError("LINEAGE_NOW %q: want an RFC 3339 time such as 2026-01-02T03:04:05Z", v)
	}
	return func() time.Time { return at }, nil
}

// storeURL picks the store: --store, LINEAGE_STORE, or the nearest
// .lineage/lineage.db upward from the working directory.
func (f *tractFlags) storeURL(env *Env) (string, error) {
	if f.store != "" {
		return f.store, nil
	}
	if v := env.Getenv("LINEAGE_STORE"); v != "" {
		return v, nil
	}
	for dir := env.Dir; ; {
		p := filepath.Join(dir, ".lineage", "lineage.db")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", errors.New("no tract store found: run 'lineage tract init' here, or pass --store / set LINEAGE_STORE")
}

func (f *tractFlags) tractName(env *Env) string {
	if f.tract != "" {
		return f.tract
	}
	if v := env.Getenv("LINEAGE_TRACT"); v != "" {
		return v
	}
	return tract.DefaultTract
}

// openStore opens the store url names.
func tractOpenStore(ctx context.Context, env *Env, url string, create, readOnly bool) (tract.Store, string, error) {
	scheme, rest := "sqlite", url
	if i := strings.Index(url, "://"); i > 0 {
		scheme = url[:i]
	} else if strings.HasPrefix(url, "sqlite:") {
		rest = strings.TrimPrefix(url, "sqlite:")
	}
	open, ok := tractOpeners[scheme]
	if !ok {
		if scheme == "postgres" || scheme == "postgresql" {
			return nil, "", fmt.Errorf("store %s: PostgreSQL stores are not supported yet by this build", tractRedactURL(url))
		}
		return nil, "", fmt.Errorf("store %s: unknown store scheme %q (want sqlite:PATH, a path, or postgres://…)", url, scheme)
	}
	if scheme == "sqlite" {
		rest = tractAbs(env, rest)
		s, err := open(ctx, rest, create, readOnly)
		return s, tractRel(env, rest), err
	}
	s, err := open(ctx, url, create, readOnly)
	return s, tractRedactURL(url), err
}

// tractRedactURL hides a password in a store URL.
func tractRedactURL(u string) string {
	at := strings.LastIndex(u, "@")
	i := strings.Index(u, "://")
	if at < 0 || i < 0 {
		return u
	}
	cred := u[i+3 : at]
	if j := strings.IndexByte(cred, ':'); j >= 0 {
		return u[:i+3] + cred[:j] + ":***" + u[at:]
	}
	return u
}

func tractAbs(e *Env, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Dir, p)
}

func tractRel(e *Env, p string) string {
	if r, err := filepath.Rel(e.Dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// session opens the selected store and returns a repo on it.
func (f *tractFlags) session(cmd *cobra.Command, env *Env) (*tractSession, error) {
	url, err := f.storeURL(env)
	if err != nil {
		return nil, err
	}
	return f.sessionAt(cmd, env, url, false, false)
}

// readSession opens the selected store read-only: read commands work on a
// read-only file system and never write a schema into a file.
func (f *tractFlags) readSession(cmd *cobra.Command, env *Env) (*tractSession, error) {
	url, err := f.storeURL(env)
	if err != nil {
		return nil, err
	}
	return f.sessionAt(cmd, env, url, false, true)
}

func (f *tractFlags) sessionAt(cmd *cobra.Command, env *Env, url string, create, readOnly bool) (*tractSession, error) {
	now, err := tractClock(env)
	if err != nil {
		return nil, err
	}
	if url, err = tractPostgresPoolURL(url, f.poolSize); err != nil {
		return nil, err
	}
	s, where, err := tractOpenStore(cmd.Context(), env, url, create, readOnly)
	if err != nil {
		if errors.Is(err, tract.ErrNotFound) {
			return nil, fmt.Errorf("no tract store at %s: run 'lineage tract init' first", where)
		}
		return nil, tractErr(err)
	}
	return &tractSession{store: s, repo: tract.New(s, tract.Options{Now: now}), tract: f.tractName(env), where: where}, nil
}

// tractErr maps domain errors to exit codes: validation problems are
// findings (3), the rest failures (1).
func tractErr(err error) error {
	if err == nil {
		return nil
	}
	var ve *tract.ValidationError
	if errors.As(err, &ve) || errors.Is(err, tract.ErrDamaged) {
		return findingError(err)
	}
	return err
}

// tractReadInput reads --text, --file or stdin (in that order of preference).
func tractReadInput(env *Env, text string, textSet bool, file string) (string, error) {
	switch {
	case textSet && file != "":
		return "", usageError("give --text or --file, not both")
	case textSet:
		return text, nil
	case file == "-":
		b, err := io.ReadAll(env.Stdin)
		return string(b), err
	case file != "":
		b, err := os.ReadFile(tractAbs(env, file))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", file, err)
		}
		return string(b), nil
	}
	if env.Stdin == nil {
		return "", usageError("give --text, --file or content on stdin")
	}
	b, err := io.ReadAll(env.Stdin)
	return string(b), err
}
