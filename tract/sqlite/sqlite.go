package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// Store is a [tract.Store] in one SQLite file.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	// beside is set on a writable handle Upgrade opened beside a
	// read-only one (see Close).
	beside bool
	// from and to are the schema versions Open found and left.
	from, to int
	reader
	closeOnce sync.Once
	closeErr  error
}

// Options tune [Open].
type Options struct {
	// Create makes the file (and its directory) when missing; otherwise a
	// missing file is an error wrapping tract.ErrNotFound.
	Create bool
	// BusyTimeout is how long a writer waits for the lock (default 30s).
	BusyTimeout time.Duration
	// ReadOnly opens the file for reading only: no schema is created (a
	// file without a lineage schema is an error naming it, and is never
	// written), it works on a read-only file system or a file the user
	// cannot write, and Update fails. It never migrates: a lineage store on
	// an older schema is an error wrapping tract.ErrOldSchema that names the
	// file, its schema version and what to do (a writable open migrates).
	ReadOnly bool
}

var _ tract.Store = (*Store)(nil)

// Open opens the store at path; a writable open migrates an older schema
// (see [Store.Migrated]).
func Open(ctx context.Context, path string, o Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite store: empty path")
	}
	if err := registerLend(); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("store %s: not a store file (a %s)", path, fileKind(fi.Mode()))
	}
	if errors.Is(err, os.ErrNotExist) {
		if !o.Create || o.ReadOnly {
			return nil, fmt.Errorf("store %s: %w", path, tract.ErrNotFound)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("create store %s: %w", path, err)
		}
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 30 * time.Second
	}
	if o.ReadOnly {
		s, err := openReadOnly(ctx, path, o)
		if old := (oldSchemaError{}); errors.As(err, &old) {
			return nil, oldStore(path, old)
		}
		return s, err
	}
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=cache_size(%d)&_pragma=temp_store(MEMORY)&_txlock=immediate%s",
		escapePath(path), o.BusyTimeout.Milliseconds(), writeCacheKiB, testDSN)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	from, err := migrate(ctx, db)
	if err != nil {
		db.Close()
		if old := (oldSchemaError{}); errors.As(err, &old) {
			return nil, oldStore(path, old)
		}
		return nil, fmt.Errorf("open store %s: %w", path, damaged(err))
	}
	s := &Store{db: db, path: path, from: from, to: len(migrations)}
	s.reader = reader{q: db, db: db, stmts: newStmtCache(db)}
	return s, nil
}

// fileKind names a mode that is not a regular file's.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
}

// testDSN is added to a writable open's DSN by tests (export_test.go).
var testDSN string

// readOnlyCacheKiB is the page cache of a read-only connection, negated
// (SQLite's unit for KiB). Read commands are short-lived and read a history
// once, in key order: a big cache only fills with pages never read again,
// anonymous memory on top of the kernel's own page cache (at 100k messages
// the write handle's 128 MiB cache costs a cold compile ~70 MB of peak RSS).
const readOnlyCacheKiB = -2048

// readOnlyMmapBytes is how much of the file a read-only connection reads
// through a memory map instead of read calls: a compile's megabyte of
// checkpoint is then copied out of the kernel's page cache once, not a
// read call per 4 KiB page (0.87-0.93 of a fresh 10k compile's CPU, paired,
// on a busy VM; its peak RSS counts the mapped pages it touched). It is
// safe with WAL: the file only shrinks in a checkpoint, and a checkpoint
// never removes pages a reader's snapshot still uses; lineage never runs
// VACUUM. A file something else truncates under a running read would
// fault, as SQLite documents for memory maps.
const readOnlyMmapBytes = 1 << 30

// openReadOnly opens path with mode=ro and query_only, checking (never
// writing) the schema. A WAL file whose -shm cannot be created (a
// read-only directory) is opened as immutable: nobody can write it there.
func openReadOnly(ctx context.Context, path string, o Options) (*Store, error) {
	var firstErr error
	for _, extra := range []string{"", "&immutable=1"} {
		dsn := fmt.Sprintf("file:%s?mode=ro%s&_pragma=busy_timeout(%d)&_pragma=query_only(1)&_pragma=cache_size(%d)&_pragma=temp_store(MEMORY)&_pragma=mmap_size(%d)",
			escapePath(path), extra, o.BusyTimeout.Milliseconds(), readOnlyCacheKiB, readOnlyMmapBytes)
		db, err := sql.Open("sqlite", dsn)
		if err == nil {
			db.SetMaxOpenConns(4)
			db.SetMaxIdleConns(4)
			if err = checkSchema(ctx, db); err == nil {
				if extra == "" {
					truncateWAL(path, walLimit)
				}
				s := &Store{db: db, path: path, readOnly: true, from: len(migrations), to: len(migrations)}
				s.reader = reader{q: db, db: db, stmts: newStmtCache(db)}
				return s, nil
			}
			db.Close()
		}
		// The immutable open's finding about the contents (an old schema,
		// say) says more than the first open's failure to open.
		if firstErr == nil || !cannotOpen(err) {
			firstErr = err
		}
		if !cannotOpen(err) && !(diskFull(err) && walAtRest(path)) {
			break
		}
	}
	return nil, fmt.Errorf("open store %s read-only: %w", path, damaged(firstErr))
}

// truncateWAL is checkpointWAL for a read-only open of a current store, and
// for a writable handle's Close when SQLite left the WAL behind: it
// opens the file writable for that alone (no schema is created or
// migrated; where the file cannot be written nothing happens), so a large
// WAL another process left does not slow this command or later ones.
func truncateWAL(path string, limit int64) {
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() <= limit {
		return
	}
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?mode=rw&_pragma=busy_timeout(0)", escapePath(path)))
	if err != nil {
		return
	}
	defer db.Close()
	checkpointWAL(db, path, limit)
}

// diskFull reports an I/O error of the kind a full disk gives a reader:
// SQLite cannot size the WAL index (-shm) it maps, or write at all.
func diskFull(err error) bool {
	msg := fmt.Sprint(err)
	return strings.Contains(msg, "disk I/O error") || strings.Contains(msg, "database or disk is full") || strings.Contains(msg, "SQLITE_FULL")
}

// walAtRest reports whether the store's WAL holds nothing (absent or
// empty): then the database file alone is the store, and an immutable
// open, which needs no WAL index, reads all of it. With a WAL that holds
// commits an immutable open would miss them, so it is not tried.
func walAtRest(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return errors.Is(err, fs.ErrNotExist) || err == nil && fi.Size() == 0
}

// cannotOpen reports an error of opening the file itself (not of its
// contents).
func cannotOpen(err error) bool {
	msg := fmt.Sprint(err)
	return strings.Contains(msg, "unable to open") || strings.Contains(msg, "readonly") || strings.Contains(msg, "SQLITE_CANTOPEN")
}

// Migrated is the schema version Open found the store at (0: none, a new
// store) and the one it left it at: they differ when a writable open
// migrated it.
func (s *Store) Migrated() (from, to int) { return s.from, s.to }

// DB is the database handle (for tests and tools that inspect the file).
func (s *Store) DB() *sql.DB { return s.db }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the store; closing it again does nothing. A writable
// handle leaves no WAL behind: SQLite folds it back into the database and
// removes it when the last connection to the file closes, which for a
// command's one handle is this close (a fold-back of its own before it, as
// Close did, only repeated that work). Where another handle keeps the file
// open, this process's read-only one that Upgrade wrote beside or another
// process's, SQLite leaves the WAL: then Close folds it back and truncates
// it (see checkpointWAL), before the close for a handle Upgrade opened (the
// read-only handle is known to stay), after it otherwise. A WAL left
// behind costs every later process a read of all of it (with no
// connection open, the first one rebuilds the WAL index from the whole
// file), and a read on a full disk needs the store at rest.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.stmts.close()
		if !s.readOnly && s.beside {
			checkpointWAL(s.db, s.path, 0)
		}
		s.closeErr = s.db.Close()
		if !s.readOnly && !s.beside {
			truncateWAL(s.path, 0)
		}
	})
	return s.closeErr
}

// walLimit is the WAL size from which a read-only open truncates it (it
// has to open the file writable for that): SQLite's own automatic
// checkpoint copies pages back at about 4 MB but never shrinks the file,
// and every fresh process would read it whole to rebuild its index.
const walLimit = 4 << 20

// checkpointWAL folds the WAL back into the database and truncates it when
// it is larger than limit bytes, without waiting: a reader or writer in
// another process keeps it for a later one. Best effort.
func checkpointWAL(db *sql.DB, path string, limit int64) {
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() <= limit {
		return
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err == nil {
		_, _ = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
}

// Update runs fn in one IMMEDIATE transaction.
func (s *Store) Update(ctx context.Context, fn func(tract.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("store %s: %w", s.path, tract.ErrReadOnly)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer conn.Close()
	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	t := &txn{reader: reader{q: sqlTx, stmts: newStmtCache(sqlTx), found: map[tract.Hash]bool{}}, conn: conn}
	defer t.stmts.close()
	defer t.closeRaw()
	if err := fn(t); err != nil {
		t.endBulk(ctx)
		sqlTx.Rollback()
		return err
	}
	if err := t.finish(ctx); err != nil {
		t.endBulk(ctx)
		sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

type txn struct {
	reader
	// conn is the transaction's connection, raw its statements prepared
	// on the driver connection (see execRaw).
	conn  *sql.Conn
	raw   map[string]driver.Stmt
	named []driver.NamedValue
	// vals and arena are buffers PutBlobs and PutCommits reuse.
	vals  []any
	arena rawArena
	// blobIDs are the ids the latest PutBlobs gave the blobs it inserted.
	blobIDs map[tract.Hash]int64
	// indexed counts the blobs indexNewBlobs added (see mergeWords).
	indexed int
	// bulk is set once the transaction writes like an import (bulkRows
	// blobs in one call): its page cache is cut to bulkCacheKiB.
	bulk bool
	// parents are first parents of commits put that were not put in the
	// same call, deleted the commits deleted: finish checks both.
	parents map[tract.Hash]bool
	deleted []tract.Hash
}

// checkParent has finish check that a first parent is stored.
//
// First parents were a foreign key of the commit row (first_parent, which
// stores of schema 5 and older still hold for their commits) until its
// index, one random hash a commit, cost an import a tenth of its time; the
// column is NULL now, and the same guarantees are checked at the end of
// the transaction, as a deferred foreign key is: a commit's first parent
// is stored (for an import, one lookup a chunk: the others are in it), and
// no commit builds on a deleted one (one scan of the commits, when a
// transaction deletes any: only GC does). A parent the transaction has
// read already (Commit found it: a commit's parent is the head it read) is
// stored, unless the transaction deleted commits since: the transaction
// holds the write lock, so nothing else removes it; that spares a
// one-commit write the lookup and its statement.
func (t *txn) checkParent(h tract.Hash) {
	if t.found[h] {
		return
	}
	if t.parents == nil {
		t.parents = map[tract.Hash]bool{}
	}
	t.parents[h] = true
}

// checkParents is finish's check of first parents (see checkParent).
func (t *txn) checkParents(ctx context.Context) error {
	if len(t.parents) > 0 {
		var missing string
		err := t.q.QueryRowContext(ctx, `SELECT value FROM json_each(?)
			WHERE NOT EXISTS (SELECT 1 FROM commits WHERE hash = unhex(value)) LIMIT 1`,
			hashList(slices.Sorted(maps.Keys(t.parents)))).Scan(&missing)
		switch {
		case err == nil:
			return fmt.Errorf("store commits: parent %s: %w", tract.Hash(missing).Short(), tract.ErrNotFound)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	if len(t.deleted) > 0 {
		var child []byte
		err := t.q.QueryRowContext(ctx, `SELECT hash FROM commits
			WHERE length(parents) >= 32 AND substr(parents, 1, 32) IN (SELECT unhex(value) FROM json_each(?)) LIMIT 1`,
			hashList(t.deleted)).Scan(&child)
		switch {
		case err == nil:
			return fmt.Errorf("delete commits: commit %s builds on one deleted", rowform.Hash(child).Short())
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	return nil
}

// writeCacheKiB is a writable connection's page cache (negated, as the
// pragma takes it), bulkCacheKiB the same during a bulk write: an import's
// pages are written once, and with the whole file in the cache (a cached
// 4 KiB page costs the process about 5.5 KiB) a 100k-message import peaked
// at 2.4 KiB of RSS per message, 1.8 KiB with 32 MiB, which holds the
// B-tree pages that random keys (hashes) keep touching while the finished
// pages spill to the WAL.
const (
	writeCacheKiB = -131072
	bulkCacheKiB  = -32768
	bulkRows      = 1000
)

// startBulk cuts the page cache for the rest of the transaction.
func (t *txn) startBulk(ctx context.Context) error {
	if t.bulk {
		return nil
	}
	t.bulk = true
	if _, err := t.q.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, bulkCacheKiB)); err != nil {
		return err
	}
	_, err := t.q.ExecContext(ctx, `INSERT INTO blob_words (blob_words, rank) VALUES ('automerge', 0), ('crisismerge', 64)`)
	return err
}

// endBulk gives the connection its page cache back.
func (t *txn) endBulk(ctx context.Context) error {
	if !t.bulk {
		return nil
	}
	t.bulk = false
	_, err := t.q.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, writeCacheKiB))
	return err
}

// finish ends a transaction's writes before its commit: it merges the
// search index segments they added and gives the connection its page
// cache back.
func (t *txn) finish(ctx context.Context) error {
	if err := t.checkParents(ctx); err != nil {
		return err
	}
	if err := t.mergeWords(ctx); err != nil {
		return err
	}
	if t.bulk {
		if _, err := t.q.ExecContext(ctx, `INSERT INTO blob_words (blob_words, rank) VALUES ('automerge', 4), ('crisismerge', 16)`); err != nil {
			return err
		}
	}
	return t.endBulk(ctx)
}

// execRaw runs a statement of the transaction, prepared once, on the
// driver connection, with vals (string, int, int64, []byte or nil)
// bound as they are: an import binds some 25 values a message, and
// database/sql's checks and conversions of each, and its argument list a
// statement, cost it several per cent. It returns the rows changed.
func (t *txn) execRaw(ctx context.Context, query string, vals []any) (int64, error) {
	if t.conn == nil {
		res, err := t.exec(ctx, query, vals...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	named := t.named[:0]
	for i, v := range vals {
		switch x := v.(type) {
		case int:
			v = int64(x)
		case string, int64, []byte, nil:
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(v); err != nil {
				return 0, err
			}
		}
		named = append(named, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	t.named = named
	var changed int64
	err := t.conn.Raw(func(dc any) error {
		st, ok := t.raw[query]
		if !ok {
			pc, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return errors.New("sqlite driver: no PrepareContext")
			}
			var err error
			if st, err = pc.PrepareContext(ctx, query); err != nil {
				return err
			}
			if t.raw == nil {
				t.raw = map[string]driver.Stmt{}
			}
			t.raw[query] = st
		}
		se, ok := st.(driver.StmtExecContext)
		if !ok {
			return errors.New("sqlite driver: no StmtExecContext")
		}
		res, err := se.ExecContext(ctx, named)
		if err != nil {
			return err
		}
		changed, err = res.RowsAffected()
		return err
	})
	clear(named) // keep no value alive
	return changed, err
}

// closeRaw closes the statements execRaw prepared.
func (t *txn) closeRaw() {
	if len(t.raw) == 0 {
		return
	}
	_ = t.conn.Raw(func(any) error {
		for q, st := range t.raw {
			st.Close()
			delete(t.raw, q)
		}
		return nil
	})
}

// exec runs a statement prepared once per transaction (imports run the
// same few statements many thousand times).
func (t *txn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.stmts.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func nanos(t time.Time) int64 { return t.UTC().UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// damaged wraps tract.ErrDamaged around SQLite's reports of a damaged
// file, so callers can tell damage from a failure.
func damaged(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "malformed") || strings.Contains(msg, "file is not a database") || strings.Contains(msg, "SQLITE_CORRUPT") {
		return fmt.Errorf("%w: %w", tract.ErrDamaged, err)
	}
	return err
}

func isUnique(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// ReopenReadOnly opens a read-only handle on the same file.
func (s *Store) ReopenReadOnly() (tract.Store, error) {
	return Open(context.Background(), s.path, Options{ReadOnly: true})
}

// Upgrade opens a writable handle on the file of a read-only store (see
// [tract.Upgrader]): a read-only connection cannot write (mode=ro), so the
// write a read command keeps goes through a second handle, opened only
// when there is something to keep. It never creates the file, and the
// read-only open already refused an older schema, so there is nothing to
// migrate. On a writable store it is Reopen.
func (s *Store) Upgrade(ctx context.Context) (tract.Store, error) {
	w, err := Open(ctx, s.path, Options{})
	if err == nil && s.readOnly {
		w.beside = true
	}
	return w, err
}

var _ tract.Upgrader = (*Store)(nil)

// Reopen opens a second handle on the same file.
func (s *Store) Reopen() (tract.Store, error) {
	return Open(context.Background(), s.path, Options{})
}
