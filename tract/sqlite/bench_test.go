package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// BenchmarkStore runs the shared tract benchmarks (storetest.Bench) on a
// fresh SQLite file each.
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) tract.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "lineage.db"), sqlite.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkUpgradeFromV1 times the migration of a v1 store of 100k
// commits (one import, then a spawn and a merge-from) by a writable open
// (a read-only open refuses an old schema): positions and the search index
// are filled in.
func BenchmarkUpgradeFromV1(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	v1 := filepath.Join(dir, "v1.db")
	s, r, reqs := importedStore(b, v1, 100_000, "")
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"}); err != nil {
		b.Fatal(err)
	}
	if _, err := r.Commit(ctx, "kid", reqs[0]); err != nil {
		b.Fatal(err)
	}
	if _, err := r.MergeFrom(ctx, "kid", ""); err != nil {
		b.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, v1Shape+`PRAGMA wal_checkpoint(TRUNCATE); VACUUM;`); err != nil {
		b.Fatal(err)
	}
	s.Close()
	data, err := os.ReadFile(v1)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "lineage.db")
	for b.Loop() {
		b.StopTimer()
		os.Remove(p + "-wal")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		up, err := sqlite.Open(ctx, p, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if from, to := up.Migrated(); from != 1 || to != sqlite.SchemaVersion {
			b.Fatalf("migrated from %d to %d", from, to)
		}
		up.Close()
	}
}

// BenchmarkOpenCommitClose10k is `lineage tract commit` on a store of 10k
// messages in process: a writable open (its pragmas and the schema's
// parse), one commit, the close (the WAL folded back). "new" commits a
// text the store does not hold, "again" the same text each time (its
// blob stored already), as a repeated whole-process measurement does.
func BenchmarkOpenCommitClose10k(b *testing.B) {
	ctx := context.Background()
	p := filepath.Join(b.TempDir(), "lineage.db")
	s, _, _ := importedStore(b, p, 10_000, " about the report")
	s.Close()
	for _, again := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "again"}[again]
		b.Run(name, func(b *testing.B) {
			i := 0
			cpu0, _ := storetest.ProcessCPU()
			for b.Loop() {
				text := "hello"
				if !again {
					i++
					text = fmt.Sprint("hello ", i)
				}
				s, err := sqlite.Open(ctx, p, sqlite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tract.New(s, tract.Options{}).Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: text}}); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			// CPU, not wall: the close waits for the disk.
			if cpu1, ok := storetest.ProcessCPU(); ok {
				b.ReportMetric((cpu1-cpu0)*1e6/float64(b.N), "cpu-µs/op")
			}
		})
	}
}

// importedStore creates a store at path with n user messages ("message
// <i>" and suffix) imported on main: the store, its repository and the
// requests.
func importedStore(b *testing.B, path string, n int, suffix string) (*sqlite.Store, *tract.Repo, []tract.CommitRequest) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, sqlite.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(ctx); err != nil {
		b.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i, suffix)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		b.Fatal(err)
	}
	return s, r, reqs
}
