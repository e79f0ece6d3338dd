package stores

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		url  string
		want Location
		err  string
	}{
		{url: "sqlite:x/l.db", want: Location{Driver: SQLite, Path: filepath.Join(dir, "x", "l.db")}},
		{url: "x/l.db", want: Location{Driver: SQLite, Path: filepath.Join(dir, "x", "l.db")}},
		// Rooted but without a drive: on Windows, on dir's drive (never
		// under dir).
		{url: "/abs/l.db", want: Location{Driver: SQLite, Path: filepath.VolumeName(dir) + filepath.FromSlash("/abs/l.db")}},
		{url: "sqlite:/abs/l.db", want: Location{Driver: SQLite, Path: filepath.VolumeName(dir) + filepath.FromSlash("/abs/l.db")}},
		{url: "postgres://u:pw@h/db", want: Location{Driver: Postgres, URL: "postgres://u:pw@h/db"}},
		{url: "postgresql://h/db", want: Location{Driver: Postgres, URL: "postgresql://h/db"}},
		{url: "mysql://u:pw@h/db", err: `store mysql://u:***@h/db: unknown store scheme "mysql"`},
		{url: "sqlite:", err: "store: empty path"},
	}
	if runtime.GOOS == "windows" {
		vol := filepath.VolumeName(dir)
		tests = append(tests,
			struct {
				url  string
				want Location
				err  string
			}{url: `\abs\l.db`, want: Location{Driver: SQLite, Path: vol + `\abs\l.db`}},
			struct {
				url  string
				want Location
				err  string
			}{url: `Q:\x\l.db`, want: Location{Driver: SQLite, Path: `Q:\x\l.db`}})
	}
	for _, tt := range tests {
		got, err := Parse(tt.url, dir)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error %v, want %q", tt.url, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.url, got, err, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db": "postgres://u:***@h:5432/db",
		"postgres://u@h/db":             "postgres://u@h/db",
		"postgres://h/db":               "postgres://h/db",
		"sqlite:/a@b/x.db":              "sqlite:/a@b/x.db",
		"postgres://u:p@ss@h/db":        "postgres://u:***@h/db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenMissingAndCreate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := Open(ctx, "sqlite:sub/l.db", Options{Dir: dir})
	if !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("open of a missing store: %v, want tract.ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed open left %v behind", err)
	}
	s, err := Open(ctx, "sub/l.db", Options{Dir: dir, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if p, ok := Locate(filepath.Join(dir, "sub")); ok {
		t.Fatalf("Locate found %s; the store is not at .lineage/lineage.db", p)
	}
}

func TestOpenPoolSize(t *testing.T) {
	ctx := context.Background()
	var ve *tract.ValidationError
	if _, err := Open(ctx, "x.db", Options{Dir: t.TempDir(), PoolSize: 2}); !errors.As(err, &ve) || ve.Field != "pool size" {
		t.Errorf("pool size on SQLite: %v, want a pool size validation error", err)
	}
	if _, err := Open(ctx, "postgres://u@127.0.0.1:1/x", Options{PoolSize: -1}); !errors.As(err, &ve) || ve.Value != "-1" {
		t.Errorf("negative pool size: %v, want a validation error", err)
	}
}

func TestOpenPostgresRedactsPassword(t *testing.T) {
	_, err := Open(context.Background(), "postgres://u:secret@127.0.0.1:1/x?connect_timeout=1", Options{})
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "u:***@") {
		t.Fatalf("error %v: want the URL with its password hidden", err)
	}
}

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := Locate(deep); ok {
		t.Fatalf("Locate found %s in an empty tree", p)
	}
	// A directory named lineage.db is not a store.
	if err := os.MkdirAll(filepath.Join(dir, "a", "b", DirName, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	want := Default(filepath.Join(dir, "a"))
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := Locate(deep); !ok || p != want {
		t.Fatalf("Locate = %s, %v; want %s", p, ok, want)
	}
}

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Open(ctx, "l.db", Options{Dir: dir, ReadOnly: true}); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("read-only open of a missing store: %v, want tract.ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "l.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a read-only open created the file")
	}
	s, err := Open(ctx, "l.db", Options{Dir: dir, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tract.New(s, tract.Options{}).Init(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := Open(ctx, "sqlite:l.db", Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	repo := tract.New(ro, tract.Options{})
	if _, err := repo.Tract(ctx, tract.DefaultTract); err != nil {
		t.Fatalf("read through a read-only handle: %v", err)
	}
	if _, err := repo.NewTract(ctx, "side"); !errors.Is(err, tract.ErrReadOnly) {
		t.Fatalf("write through a read-only handle: %v, want tract.ErrReadOnly", err)
	}
}
