package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
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

const tractShort = "Version-controlled LLM context: commits, branches, compile"

func newTractCmd(env *Env) *cobra.Command {
	cmd := groupCmd("tract", tractShort,
		`A tract is one agent's context history: a DAG of commits holding messages,
instructions and tool calls. Compile turns a head into the message list an
LLM receives, under an optional token budget.

Store: --store URL or LINEAGE_STORE (sqlite:PATH, a plain path, postgres://…);
default: the nearest .lineage/lineage.db upward from the working directory.
Tract: --tract NAME or LINEAGE_TRACT, default main.
Refs: full hash, unique prefix (4+ characters), branch, tag, HEAD, HEAD~N, TRACT:REF.`)
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
		newTractGCCmd(env, f), newTractVerifyCmd(env, f), newTractMigrateCmd(env, f),
		newTractTagCmd(env, f), newTractTagsCmd(env, f), newTractFindCmd(env, f), newTractExportCmd(env, f),
		newTractCompressCmd(env, f), newTractDiffCmd(env, f), newTractStatusCmd(env, f), newTractConfigCmd(env, f),
	)
	return cmd
}

// tractSession is an open store with the repo and tract a command works on.
type tractSession struct {
	store tract.Store
	repo  *tract.Repo
	tract string
	// where names the store for messages.
	where string
	// leaveOpen: Close leaves the store to the process's exit (see
	// sessionAt).
	leaveOpen bool
}

func (s *tractSession) Close() error {
	if s.leaveOpen {
		return nil
	}
	return s.store.Close()
}

// storeURL picks the store: flag (--store), LINEAGE_STORE, or the nearest
// .lineage/lineage.db upward from dir.
func storeURL(env *Env, flag, dir string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if v := env.Getenv("LINEAGE_STORE"); v != "" {
		return v, nil
	}
	if p, ok := stores.Locate(dir); ok {
		return p, nil
	}
	return "", errors.New("no tract store found: run 'lineage tract init' here, or pass --store / set LINEAGE_STORE")
}

// tractName is the flag (--tract), else LINEAGE_TRACT, else main.
func tractName(env *Env, flag string) string {
	if flag != "" {
		return flag
	}
	if v := env.Getenv("LINEAGE_TRACT"); v != "" {
		return v
	}
	return tract.DefaultTract
}

// openRepo opens the store url names (a relative SQLite path is relative to
// dir) and returns a repo on it with the environment's clock, and the
// store's name for messages.
func openRepo(ctx context.Context, env *Env, dir, url string, o stores.Options) (*tract.Repo, string, error) {
	now, err := env.Clock()
	if err != nil {
		return nil, "", err
	}
	loc, err := stores.Parse(url, dir)
	if err != nil {
		return nil, "", err
	}
	where := loc.String()
	if loc.Driver == stores.SQLite {
		where = relTo(env.Dir, loc.Path)
	}
	o.Dir = dir
	s, err := stores.Open(ctx, url, o)
	if errors.Is(err, tract.ErrNotFound) {
		return nil, "", fmt.Errorf("no tract store at %s: run 'lineage tract init' first", where)
	}
	if err != nil {
		return nil, "", err
	}
	opts := tract.Options{Now: now}
	if o.ReadOnly {
		// A read command may still keep the token counts it made, where the
		// file can be written.
		w := o
		w.ReadOnly, w.Create = false, false
		opts.CacheWriter = func() (tract.Store, error) { return stores.Open(ctx, url, w) }
	}
	return tract.New(s, opts), where, nil
}

// relTo is p relative to dir when p lies inside it, else p.
func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// session opens the selected store and returns a repo on it.
func (f *tractFlags) session(cmd *cobra.Command, env *Env) (*tractSession, error) {
	url, err := storeURL(env, f.store, env.Dir)
	if err != nil {
		return nil, err
	}
	return f.sessionAt(cmd, env, url, false, false)
}

// readSession opens the selected store read-only: read commands work on a
// read-only file system and never write a schema into a file.
func (f *tractFlags) readSession(cmd *cobra.Command, env *Env) (*tractSession, error) {
	url, err := storeURL(env, f.store, env.Dir)
	if err != nil {
		return nil, err
	}
	return f.sessionAt(cmd, env, url, false, true)
}

func (f *tractFlags) sessionAt(cmd *cobra.Command, env *Env, url string, create, readOnly bool) (*tractSession, error) {
	if f.poolSize < 0 {
		return nil, usageError("--pool-size %d: want a positive number of connections", f.poolSize)
	}
	if f.poolSize > 0 && !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return nil, usageError("--pool-size applies to PostgreSQL stores (postgres://…) only")
	}
	repo, where, err := openRepo(cmd.Context(), env, env.Dir, url, stores.Options{Create: create, ReadOnly: readOnly, PoolSize: f.poolSize})
	if err != nil {
		return nil, tractErr(err)
	}
	s := &tractSession{store: repo.Store(), repo: repo, tract: tractName(env, f.tract), where: where}
	// A read-only SQLite handle has nothing to write back when it closes
	// (no checkpoint: it cannot write the file), and the exit releases its
	// locks and files as a close would; closing it (statements, the WAL
	// index's mapping) costs a short read command a twentieth of its run.
	if loc, err := stores.Parse(url, env.Dir); err == nil && readOnly && env.Exits && loc.Driver == stores.SQLite {
		s.leaveOpen = true
	}
	return s, nil
}

// tractErr maps domain errors to exit codes (docs/cli.md): damage in the
// store is an integrity finding (3); a *tract.ValidationError is about what
// the command line asked for (a malformed ref, an unknown type or role, a
// commit that cannot be edited), a usage error (2); the rest — including a
// well-formed ref, branch or tract that does not exist — failures (1).
// Input read from a file (tract import) is validated on its own path and
// stays a finding there.
func tractErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, tract.ErrDamaged) {
		return findingError(err)
	}
	var ve *tract.ValidationError
	if errors.As(err, &ve) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return err
}

// inputErr maps an error about the content of an input file to exit
// codes: a validation problem there is a finding (3).
func inputErr(err error) error {
	var ve *tract.ValidationError
	if errors.As(err, &ve) {
		return findingError(err)
	}
	return tractErr(err)
}

// optionError makes the validation error of an options struct a usage
// error (exit 2) worded in flags: "unknown --format "xml" (want …)" for a
// value outside a set, "--budget must be positive" for one out of range.
// A field that is no flag's name, or has no value, keeps the library's
// wording.
func optionError(err error) error {
	var ve *tract.ValidationError
	switch {
	case !errors.As(err, &ve):
		return err
	case strings.Contains(ve.Field, " "), ve.Value == "":
		return usageError("%v", ve)
	case strings.HasPrefix(ve.Reason, "want "):
		return usageError("unknown --%s %q (%s)", ve.Field, ve.Value, ve.Reason)
	}
	return usageError("--%s %s", ve.Field, ve.Reason)
}

// tractReadInput reads --text, --file or stdin (in that order of
// preference). Text that is empty or only white space is a usage error
// naming where it came from, unless allowEmpty (a tool_call carries its
// calls, not text).
func tractReadInput(env *Env, text string, textSet bool, file string, allowEmpty bool) (string, error) {
	var body, from string
	switch {
	case textSet && file != "":
		return "", usageError("give --text or --file, not both")
	case textSet:
		body, from = text, "--text"
	case file != "" && file != "-":
		from = "--file " + fsx.LineSafe(file)
		f, err := os.Open(fsx.Abs(env.Dir, file))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", file, err)
		}
		b, err := readContent(f, from)
		f.Close()
		if err != nil {
			return "", err
		}
		body = string(b)
	default:
		if env.Stdin == nil {
			return "", usageError("give --text, --file or content on stdin")
		}
		if env.StdinTerminal {
			fmt.Fprintf(env.Stderr, "lineage: reading %s from stdin (end with Ctrl-D)\n", "the text")
		}
		from = "stdin"
		b, err := readContent(env.Stdin, from)
		if err != nil {
			return "", err
		}
		body = string(b)
	}
	if !allowEmpty && strings.TrimSpace(body) == "" {
		return "", usageError("%s is empty: a commit needs text (give --text, --file or content on stdin)", from)
	}
	return body, nil
}

// readContent reads one commit's text, refusing (a usage error) as soon as
// it holds more bytes than a commit's content may: a 68 MB file is not read
// to the end to be refused.
func readContent(r io.Reader, from string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, tract.MaxContentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", from, err)
	}
	if len(b) > tract.MaxContentBytes {
		return nil, usageError("invalid content: %s holds more than %d bytes, the limit for one commit", from, tract.MaxContentBytes)
	}
	return b, nil
}

// readStdin reads all of stdin. On a terminal it first says on stderr
// that it waits for input, so a command never hangs silently.
func readStdin(env *Env, what string) ([]byte, error) {
	if env.StdinTerminal {
		fmt.Fprintf(env.Stderr, "lineage: reading %s from stdin (end with Ctrl-D)\n", what)
	}
	b, err := io.ReadAll(env.Stdin)
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	return b, nil
}

// withSession adapts a command body that needs an open tract session into a
// cobra RunE: it validates the command's options (an invalid one is a usage
// error, and no store is opened), opens the store named by the flags, runs
// fn and closes the store.
func (f *tractFlags) withSession(env *Env, fn func(cmd *cobra.Command, args []string, s *tractSession) error, valid ...validator) func(*cobra.Command, []string) error {
	return f.runSession(env, f.session, fn, valid)
}

// withReadSession is withSession on a read-only store, its calls made
// with a polling context (see pollingContext).
func (f *tractFlags) withReadSession(env *Env, fn func(cmd *cobra.Command, args []string, s *tractSession) error, valid ...validator) func(*cobra.Command, []string) error {
	run := f.runSession(env, f.readSession, fn, valid)
	return func(cmd *cobra.Command, args []string) error {
		cmd.SetContext(pollingContext(cmd.Context()))
		return run(cmd, args)
	}
}

func (f *tractFlags) runSession(env *Env, open func(*cobra.Command, *Env) (*tractSession, error), fn func(cmd *cobra.Command, args []string, s *tractSession) error, valid []validator) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		for _, v := range valid {
			if err := v.Validate(); err != nil {
				return optionError(err)
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

// check is a validation written in place.
type check func() error

func (c check) Validate() error { return c() }
