package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
)

func benchRepo(b *testing.B) *tract.Repo {
	b.Helper()
	cfg, _ := freshSchema(b)
	r := tract.New(openIn(b, cfg, postgres.Options{Create: true}), tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		b.Fatal(err)
	}
	return r
}

func messages(n, offset int) []tract.CommitRequest {
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role,
			Text: fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog", offset+i)}}
	}
	return reqs
}

// The same benchmarks as tract/sqlite's, against the PostgreSQL server of
// the tests (over loopback under pg_virtualenv), each in a fresh schema.

// BenchmarkImport100k: import of 100k messages in one transaction (COPY).
func BenchmarkImport100k(b *testing.B) {
	const n = 100_000
	reqs := messages(n, 0)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := benchRepo(b)
		b.StartTimer()
		if _, err := r.Import(context.Background(), "main", reqs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// filled returns a repo with n commits whose token counts are recorded.
func filled(b *testing.B, n int) *tract.Repo {
	b.Helper()
	r := benchRepo(b)
	if _, err := r.Import(context.Background(), "main", messages(n, 0)); err != nil {
		b.Fatal(err)
	}
	if _, err := r.CompileCold(context.Background(), "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkCompileCold: one query for the history, one for the blobs, no
// cache (targets: 10k ≤ 25 ms, 100k ≤ 250 ms).
func BenchmarkCompileCold(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := filled(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := r.CompileCold(context.Background(), "main", tract.CompileOptions{})
				if err != nil || len(res.Messages) != n {
					b.Fatal(err, len(res.Messages))
				}
			}
		})
	}
}

// BenchmarkCompileFirst: a cold compile that also has to count every
// blob's tokens (first compile after an import).
func BenchmarkCompileFirst10k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := benchRepo(b)
		if _, err := r.Import(context.Background(), "main", messages(10_000, 0)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.CompileCold(context.Background(), "main", tract.CompileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileWarmAfterAppend: the cached compile of a 100k-commit
// tract after one more append (target < 1 ms).
func BenchmarkCompileWarmAfterAppend100k(b *testing.B) {
	r := filled(b, 100_000)
	ctx := context.Background()
	if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := r.Commit(ctx, "main", messages(1, i)[0]); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommit: one append, one transaction.
func BenchmarkCommit(b *testing.B) {
	r := benchRepo(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Commit(ctx, "main", messages(1, i)[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDelegationRoundTrip: spawn, 100 child commits, merge-from,
// compile the parent (upstream's copy-based equivalent: 0.40 s).
func BenchmarkDelegationRoundTrip(b *testing.B) {
	r := benchRepo(b)
	ctx := context.Background()
	if _, err := r.Import(ctx, "main", messages(20, 0)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		child := fmt.Sprintf("child%d", i)
		if _, err := r.Spawn(ctx, "main", child, tract.SpawnOptions{Purpose: "research"}); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 100; j++ {
			if _, err := r.Commit(ctx, child, messages(1, j)[0]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := r.MergeFrom(ctx, child, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGC100kNothingToCollect: a collection over 100k reachable commits.
func BenchmarkGC100kNothingToCollect(b *testing.B) {
	r := benchRepo(b)
	if _, err := r.Import(context.Background(), "main", messages(100_000, 0)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := r.GC(context.Background(), tract.GCOptions{Retention: tract.DefaultRetention})
		if err != nil || len(rep.Removed) != 0 || rep.Scanned != 100_000 {
			b.Fatal(err, rep.Scanned)
		}
	}
}

// BenchmarkHistory10k: the store's share of a cold compile (one History
// read of 10k commits with their blobs).
func BenchmarkHistory10k(b *testing.B) {
	r := filled(b, 10_000)
	ctx := context.Background()
	_, head, err := r.Head(ctx, "main")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hist, err := r.Store().History(ctx, []tract.Hash{head.Commit}, "o200k_base")
		if err != nil || len(hist) != 10_000 {
			b.Fatal(err, len(hist))
		}
	}
}
