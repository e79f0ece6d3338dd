package clienv

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// TractFlags are the flags every tract command shares.
type TractFlags struct {
	Store string
	Tract string
	// poolSize caps a PostgreSQL store's connection pool (0: the URL's
	// pool_max_conns or the driver's default).
	PoolSize int
}

// TractSession is an open store with the repo and tract a command works on.
type TractSession struct {
	Store tract.Store
	Repo  *tract.Repo
	Tract string
	// where names the store for messages.
	Where string
	// leaveOpen: Close leaves the store to the process's exit (see
	// sessionAt).
	leaveOpen bool
}

func (s *TractSession) Close() error {
	if s.leaveOpen {
		return nil
	}
	return s.Store.Close()
}

// OpenRepo opens the store url names (a relative SQLite path is relative to
// dir) and returns a repo on it with the environment's clock, and the
// store's name for messages.
func OpenRepo(ctx context.Context, env *Env, dir, url string, o stores.Options) (*tract.Repo, string, error) {
	loc, err := stores.Parse(url, dir)
	if err != nil {
		return nil, "", err
	}
	return OpenRepoAt(ctx, env, loc, o)
}

// OpenRepoAt is OpenRepo at a parsed location: the URL is parsed once per
// command, and the database opened once (a read command's compile keeps
// its caches through the store's own upgrade, tract.Upgrader).
func OpenRepoAt(ctx context.Context, env *Env, loc stores.Location, o stores.Options) (*tract.Repo, string, error) {
	now, err := env.Clock()
	if err != nil {
		return nil, "", err
	}
	where := loc.String()
	if loc.Driver == stores.SQLite {
		where = relTo(env.Dir, loc.Path)
	}
	s, err := loc.Open(ctx, o)
	if errors.Is(err, tract.ErrNotFound) {
		return nil, "", fmt.Errorf("no tract store at %s: run 'lineage tract init' first", where)
	}
	if err != nil {
		return nil, "", err
	}
	return tract.New(s, tract.Options{Now: now}), where, nil
}

// relTo is p relative to dir when p lies inside it, else p.
func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// session opens the selected store and returns a repo on it.
func (f *TractFlags) Session(cmd *cobra.Command, env *Env) (*TractSession, error) {
	url, err := env.Host().StoreURL(f.Store, env.Dir)
	if err != nil {
		return nil, err
	}
	return f.SessionAt(cmd, env, url, false, false)
}

// readSession opens the selected store read-only: read commands work on a
// read-only file system and never write a schema into a file.
func (f *TractFlags) ReadSession(cmd *cobra.Command, env *Env) (*TractSession, error) {
	url, err := env.Host().StoreURL(f.Store, env.Dir)
	if err != nil {
		return nil, err
	}
	return f.SessionAt(cmd, env, url, false, true)
}

func (f *TractFlags) SessionAt(cmd *cobra.Command, env *Env, url string, create, readOnly bool) (*TractSession, error) {
	if f.PoolSize < 0 {
		return nil, UsageError("--pool-size %d: want a positive number of connections", f.PoolSize)
	}
	loc, err := stores.Parse(url, env.Dir)
	if f.PoolSize > 0 && (err != nil || loc.Driver != stores.Postgres) {
		return nil, UsageError("--pool-size applies to PostgreSQL stores (postgres://…) only")
	}
	if err != nil {
		return nil, TractErr(err)
	}
	repo, where, err := OpenRepoAt(cmd.Context(), env, loc, stores.Options{Create: create, ReadOnly: readOnly, PoolSize: f.PoolSize})
	if err != nil {
		return nil, TractErr(err)
	}
	s := &TractSession{Store: repo.Store(), Repo: repo, Tract: env.Host().TractName(f.Tract), Where: where}
	// A read-only SQLite handle has nothing to write back when it closes
	// (no checkpoint: it cannot write the file), and the exit releases its
	// locks and files as a close would; closing it (statements, the WAL
	// index's mapping) costs a short read command a twentieth of its run.
	if readOnly && env.Exits && loc.Driver == stores.SQLite {
		s.leaveOpen = true
	}
	return s, nil
}

// TractErr maps domain errors to exit codes (docs/cli.md): damage in the
// store is an integrity finding (3); a *tract.ValidationError is about what
// the command line asked for (a malformed ref, an unknown type or role, a
// commit that cannot be edited), a usage error (2); the rest — including a
// well-formed ref, branch or tract that does not exist — failures (1).
// Input read from a file (tract import) is validated on its own path and
// stays a finding there.
func TractErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, tract.ErrDamaged) {
		return FindingError(err)
	}
	var ve *tract.ValidationError
	if errors.As(err, &ve) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return err
}

// OptionError makes the validation error of an options struct a usage
// error (exit 2) worded in flags: "unknown --format "xml" (want …)" for a
// value outside a set, "--budget must be positive" for one out of range.
// A field that is no flag's name, or has no value, keeps the library's
// wording.
func OptionError(err error) error {
	var ve *tract.ValidationError
	switch {
	case !errors.As(err, &ve):
		return err
	case strings.Contains(ve.Field, " "), ve.Value == "":
		return UsageError("%v", ve)
	case strings.HasPrefix(ve.Reason, "want "):
		return UsageError("unknown --%s %q (%s)", ve.Field, ve.Value, ve.Reason)
	}
	return UsageError("--%s %s", ve.Field, ve.Reason)
}

// withSession adapts a command body that needs an open tract session into a
// cobra RunE: it validates the command's options (an invalid one is a usage
// error, and no store is opened), opens the store named by the flags, runs
// fn and closes the store.
func (f *TractFlags) WithSession(env *Env, fn func(cmd *cobra.Command, args []string, s *TractSession) error, valid ...validator) func(*cobra.Command, []string) error {
	return f.runSession(env, f.Session, fn, valid)
}

// withReadSession is withSession on a read-only store, its calls made
// with a polling context (see pollingContext).
func (f *TractFlags) WithReadSession(env *Env, fn func(cmd *cobra.Command, args []string, s *TractSession) error, valid ...validator) func(*cobra.Command, []string) error {
	run := f.runSession(env, f.ReadSession, fn, valid)
	return func(cmd *cobra.Command, args []string) error {
		cmd.SetContext(pollingContext(cmd.Context()))
		return run(cmd, args)
	}
}

func (f *TractFlags) runSession(env *Env, open func(*cobra.Command, *Env) (*TractSession, error), fn func(cmd *cobra.Command, args []string, s *TractSession) error, valid []validator) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		for _, v := range valid {
			if err := v.Validate(); err != nil {
				return OptionError(err)
			}
		}
		s, err := open(cmd, env)
		if err != nil {
			return err
		}
		defer s.Close()
		return fn(cmd, args, s)
	}
}

// validator is options that validate themselves (tract.CompileOptions,
// tract.SpawnOptions, …).
type validator interface{ Validate() error }

// Check is a validation written in place.
type Check func() error

func (c Check) Validate() error { return c() }
