package stores

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// Driver names the store package a URL selects.
type Driver string

// The drivers this build opens.
const (
	SQLite   Driver = "sqlite"
	Postgres Driver = "postgres"
)

// Default store location inside a project directory.
const (
	DirName  = ".lineage"
	FileName = "lineage.db"
)

// Options tune an open.
type Options struct {
	// Create makes a missing store (an SQLite file and its directory, a
	// PostgreSQL schema); otherwise a missing one is an error wrapping
	// tract.ErrNotFound.
	Create bool
	// ReadOnly opens a handle that never writes: no file or schema is
	// created or migrated and writes fail. A lineage store on an older
	// schema is an error wrapping tract.ErrOldSchema naming it, its version
	// and what to do; a writable open migrates it.
	ReadOnly bool
	// PoolSize caps a PostgreSQL store's connection pool (0: the URL's
	// pool_max_conns, else the driver's default). SQLite stores take none.
	PoolSize int
	// Dir is what a relative SQLite path is relative to ("": the process
	// working directory).
	Dir string
}

// Location is a parsed store URL.
type Location struct {
	Driver Driver
	// Path is an SQLite store's file, absolute when Dir was given.
	Path string
	// URL is a PostgreSQL store's connection URL.
	URL string
}

// String is the location as it may be shown: the SQLite path, or the
// PostgreSQL URL with its password hidden.
func (l Location) String() string {
	if l.Driver == SQLite {
		return l.Path
	}
	return Redact(l.URL)
}

// opener opens one driver's store at a parsed location.
type opener func(ctx context.Context, l Location, o Options) (tract.Store, error)

// openers lists every driver this build can open.
var openers = map[Driver]opener{
	SQLite:   openSQLite,
	Postgres: openPostgres,
}

// Parse says which store url names. A relative SQLite path is made
// absolute against dir when dir is not "".
func Parse(url, dir string) (Location, error) {
	if scheme, _, ok := strings.Cut(url, "://"); ok && scheme != "" {
		switch scheme {
		case "postgres", "postgresql":
			return Location{Driver: Postgres, URL: url}, nil
		}
		return Location{}, fmt.Errorf("store %s: unknown store scheme %q (want sqlite:PATH, a path, or postgres://…)", Redact(url), scheme)
	}
	p := strings.TrimPrefix(url, "sqlite:")
	if p == "" {
		return Location{}, errors.New("store: empty path")
	}
	if dir != "" {
		// The OS's own rules: on Windows `\x.db` is on dir's drive and
		// `D:x.db` on drive D, never joined under dir.
		p = fsx.Abs(dir, p)
	}
	return Location{Driver: SQLite, Path: filepath.Clean(p)}, nil
}

// Open opens the store url names. A missing store is an error wrapping
// tract.ErrNotFound unless o.Create is set.
func Open(ctx context.Context, url string, o Options) (tract.Store, error) {
	l, err := Parse(url, o.Dir)
	if err != nil {
		return nil, err
	}
	return l.Open(ctx, o)
}

// Open opens the store at a parsed location (o.Dir is not used: Parse
// made the path absolute), for a caller that parsed the URL to name the
// store or pick a lock and opens it without parsing again. A read-only
// store's compiles keep their caches through its own upgrade
// (tract.Upgrader), never by opening the URL again.
func (l Location) Open(ctx context.Context, o Options) (tract.Store, error) {
	if _, ok := openers[l.Driver]; !ok {
		return nil, fmt.Errorf("store: unknown driver %q", l.Driver)
	}
	if o.PoolSize < 0 {
		return nil, &tract.ValidationError{Field: "pool size", Value: fmt.Sprint(o.PoolSize), Reason: "want a positive number of connections"}
	}
	if o.PoolSize > 0 && l.Driver != Postgres {
		return nil, &tract.ValidationError{Field: "pool size", Reason: "applies to PostgreSQL stores only"}
	}
	return openers[l.Driver](ctx, l, o)
}

func openSQLite(ctx context.Context, l Location, o Options) (tract.Store, error) {
	s, err := sqlite.Open(ctx, l.Path, sqlite.Options{Create: o.Create, ReadOnly: o.ReadOnly})
	if err != nil {
		return nil, err
	}
	if !o.ReadOnly {
		keepOutOfGit(filepath.Dir(l.Path))
	}
	return s, nil
}

// GitignoreName is the file a .lineage directory holds so that git never
// shows the store, its lock or its journal files: it ignores everything.
const GitignoreName = ".gitignore"

// keepOutOfGit writes .gitignore ("*") into dir when dir is a .lineage
// directory without one; an existing file is the user's and stays as it
// is. Best effort: a directory that cannot take it still holds a store.
func keepOutOfGit(dir string) {
	if filepath.Base(dir) != DirName {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, GitignoreName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	_, err = f.WriteString("*\n")
	if cerr := f.Close(); err != nil || cerr != nil {
		_ = os.Remove(filepath.Join(dir, GitignoreName))
	}
}

func openPostgres(ctx context.Context, l Location, o Options) (tract.Store, error) {
	s, err := postgres.Open(ctx, l.URL, postgres.Options{Create: o.Create, ReadOnly: o.ReadOnly, MaxConns: int32(o.PoolSize)})
	if err != nil {
		if errors.Is(err, tract.ErrNotFound) || errors.Is(err, tract.ErrOldSchema) {
			return nil, err // already names the database
		}
		return nil, fmt.Errorf("store %s: %w", Redact(l.URL), err)
	}
	return s, nil
}

// Migrator is a store that reports the schema versions its open found
// (0: none, a new store) and left (both drivers' stores are).
type Migrator interface {
	Migrated() (from, to int)
}

var (
	_ Migrator = (*sqlite.Store)(nil)
	_ Migrator = (*postgres.Store)(nil)
)

// Locate returns the nearest .lineage/lineage.db at or above dir, and
// whether there is one.
func Locate(dir string) (string, bool) {
	for {
		p := filepath.Join(dir, DirName, FileName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Unusable is the nearest .lineage/lineage.db upward from dir that exists
// but is not a file a store can be (Locate passes over it), and what it is
// instead; "" when there is none. It turns "no store found" into what is
// in the way.
func Unusable(dir string) (path, what string) {
	for {
		p := filepath.Join(dir, DirName, FileName)
		if li, err := os.Lstat(p); err == nil {
			fi, err := os.Stat(p)
			switch {
			case err != nil:
				return p, "a symbolic link to nothing"
			case fi.IsDir():
				return p, "a directory"
			case !fi.Mode().IsRegular():
				return p, "not a regular file (" + li.Mode().Type().String() + ")"
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

// Default is the store `lineage tract init` creates in dir.
func Default(dir string) string { return filepath.Join(dir, DirName, FileName) }

// Redact hides the password of a URL's user information, for messages.
func Redact(url string) string {
	at := strings.LastIndex(url, "@")
	i := strings.Index(url, "://")
	if at < 0 || i < 0 || at < i {
		return url
	}
	cred := url[i+3 : at]
	if j := strings.IndexByte(cred, ':'); j >= 0 {
		return url[:i+3] + cred[:j] + ":***" + url[at:]
	}
	return url
}
