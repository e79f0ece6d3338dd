package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is a [tract.Store] in a PostgreSQL database.
type Store struct {
	pool     *pgxpool.Pool
	cfg      *pgxpool.Config
	readOnly bool
	// upgraded is a read-only store's writing view (see Upgrade): its
	// transactions are READ WRITE, and Close leaves the pool to the store
	// it came from.
	upgraded bool
	// from and to are the schema versions Open found and left.
	from, to int
	reader
}

// Options tune [Open].
type Options struct {
	// Create makes the schema when the database has none; otherwise a
	// database without one is an error wrapping tract.ErrNotFound.
	Create bool
	// MaxConns caps the connection pool (0: the URL's pool_max_conns, else
	// pgxpool's default of max(4, number of CPUs)).
	MaxConns int32
	// Retries is how many times Update runs its function again after a
	// serialization failure or deadlock (default 20).
	Retries int
	// ReadOnly makes every transaction read-only (the session default
	// default_transaction_read_only) and never creates the schema: a
	// database without one is an error, and Update fails. It never
	// migrates: a schema older than this package's is an error wrapping
	// tract.ErrOldSchema that names the database (user@host:port/db), its
	// schema version and what to do (a writable open migrates).
	ReadOnly bool
}

var _ tract.Store = (*Store)(nil)

// Open connects to the database url names (a postgres:// URL or a
// key=value connection string; "" uses the PG* environment variables) and
// migrates its schema.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	return OpenConfig(ctx, cfg, o)
}

// OpenConfig is [Open] with a parsed pool configuration.
func OpenConfig(ctx context.Context, cfg *pgxpool.Config, o Options) (*Store, error) {
	cfg = cfg.Copy()
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	if o.Retries <= 0 {
		o.Retries = 20
	}
	if o.ReadOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	from, err := migrate(ctx, pool, o.Create && !o.ReadOnly, o.ReadOnly)
	if old := (oldSchemaError{}); errors.As(err, &old) {
		err = &tract.OldSchemaError{Store: database(cfg), Version: old.version, Current: len(migrations)}
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, cfg: cfg, readOnly: o.ReadOnly, from: from, to: len(migrations)}
	s.reader = reader{q: pool, retries: o.Retries}
	return s, nil
}

// Migrated is the schema version Open found the database at (0: none, a
// new schema) and the one it left it at: they differ when a writable open
// migrated it.
func (s *Store) Migrated() (from, to int) { return s.from, s.to }

// Pool is the connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool (an upgraded view's Close leaves it open).
func (s *Store) Close() error {
	if !s.upgraded {
		s.pool.Close()
	}
	return nil
}

// Upgrade returns a writing view of a read-only store on the same pool
// (see [tract.Upgrader]): its transactions are READ WRITE, which overrides
// the read-only session default, so no second pool connects. Closing the
// view leaves the pool open; it stays usable while the store is. On a
// writable store it is such a view too.
func (s *Store) Upgrade(context.Context) (tract.Store, error) {
	v := &Store{pool: s.pool, cfg: s.cfg, upgraded: true, from: s.from, to: s.to}
	v.reader = reader{q: s.pool, retries: s.retries}
	return v, nil
}

var _ tract.Upgrader = (*Store)(nil)

// ReopenReadOnly opens a read-only pool on the same database.
func (s *Store) ReopenReadOnly() (tract.Store, error) {
	return OpenConfig(context.Background(), s.cfg, Options{Retries: s.retries, ReadOnly: true})
}

// Reopen opens a second pool on the same database.
func (s *Store) Reopen() (tract.Store, error) {
	return OpenConfig(context.Background(), s.cfg, Options{Retries: s.retries, ReadOnly: s.readOnly})
}

// Update runs fn in one READ COMMITTED transaction, and runs it again
// (bounded, with a random pause) when the database reports a serialization
// failure or a deadlock.
func (s *Store) Update(ctx context.Context, fn func(tract.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("postgres store: %w", tract.ErrReadOnly)
	}
	var err error
	for attempt := 0; attempt <= s.retries; attempt++ {
		if err = s.update(ctx, fn); !Retryable(err) {
			return err
		}
		pause := time.Duration(rand.IntN(1+attempt*4)) * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	return fmt.Errorf("gave up after %d attempts: %w", s.retries+1, err)
}

func (s *Store) update(ctx context.Context, fn func(tract.Tx) error) error {
	o := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
	if s.upgraded {
		o.AccessMode = pgx.ReadWrite
	}
	pgTx, err := s.pool.BeginTx(ctx, o)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	t := &txn{reader: reader{q: pgTx, inTx: true}}
	if err := fn(t); err != nil {
		pgTx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// Retryable reports whether err is a serialization failure or a deadlock:
// the transaction did nothing and may simply run again.
func Retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return false
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func nanos(t time.Time) int64 { return t.UTC().UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }
