package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// Bench runs the tract performance benchmarks against a store: newStore
// returns a fresh, empty store closed by b.Cleanup. Each backend's benchmark
// is one line, so their numbers compare like for like:
//
//	func BenchmarkStore(b *testing.B) { storetest.Bench(b, newStore) }
//
// Targets (see the tract issues): import ≥ 60,000 messages/s; cold compile of
// 10k commits ≤ 25 ms and of 100k ≤ 250 ms; warm compile after one append at
// 100k < 1 ms.
func Bench(b *testing.B, newStore func(*testing.B) tract.Store) {
	for _, bm := range []struct {
		name string
		fn   func(*testing.B, func(*testing.B) tract.Store)
	}{
		{"Import100k", benchImport100k},
		{"CompileCold", benchCompileCold},
		{"CompileFresh", benchCompileFresh},
		{"CompileFirst10k", benchCompileFirst10k},
		{"CompileWarmAfterAppend100k", benchCompileWarmAfterAppend100k},
		{"Commit", benchCommit},
		{"DelegationRoundTrip", benchDelegationRoundTrip},
		{"GC100kNothingToCollect", benchGC100kNothingToCollect},
		{"History10k", benchHistory10k},
		{"Touched100k", benchTouched100k},
		{"Fresh100k", benchFresh100k},
		{"Compress10k", benchCompress10k},
		{"CompressDryRun10k", benchCompressDryRun10k},
		{"CompressPlan10k", benchCompressPlan10k},
		{"Diff10k", benchDiff10k},
	} {
		b.Run(bm.name, func(b *testing.B) { bm.fn(b, newStore) })
	}
}

// benchRepo is a repository with tract main on a fresh store.
func benchRepo(b *testing.B, newStore func(*testing.B) tract.Store) *tract.Repo {
	b.Helper()
	r := tract.New(newStore(b), tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		b.Fatal(err)
	}
	return r
}

func benchMessages(n, offset int) []tract.CommitRequest {
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

// benchImport100k: import of 100k messages in one transaction
// (target ≥ 60,000 messages/s).
func benchImport100k(b *testing.B, newStore func(*testing.B) tract.Store) {
	const n = 100_000
	reqs := benchMessages(n, 0)
	var cpu float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := benchRepo(b, newStore)
		start, _ := processCPU()
		b.StartTimer()
		if _, err := r.Import(context.Background(), "main", reqs); err != nil {
			b.Fatal(err)
		}
		end, _ := processCPU()
		cpu += end - start
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	if _, ok := processCPU(); ok && cpu > 0 {
		// Two cores: a process with a busy GC can use more CPU than wall
		// time, so this is a floor on the unloaded rate, not a ceiling.
		b.ReportMetric(float64(n*b.N)/cpu, "msgs/cpu-s")
	}
}

// filled returns a repo with n commits whose token counts are recorded.
func filled(b *testing.B, newStore func(*testing.B) tract.Store, n int) *tract.Repo {
	b.Helper()
	r := benchRepo(b, newStore)
	if _, err := r.Import(context.Background(), "main", benchMessages(n, 0)); err != nil {
		b.Fatal(err)
	}
	if _, err := r.CompileCold(context.Background(), "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	return r
}

// benchCompileCold: one query for the history, one for the blobs, no
// cache and no stored checkpoint: what the first compile of a history, or
// a compile with checkpoints off, costs (targets: 10k ≤ 25 ms, 100k ≤ 250
// ms).
func benchCompileCold(b *testing.B, newStore func(*testing.B) tract.Store) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := tract.New(filled(b, newStore, n).Store(), tract.Options{NoCheckpoints: true})
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

// benchCompileFresh: the compile of a fresh process (a new Repo, no
// in-memory cache) on a history whose compile checkpoint is stored, written
// as `tract compile --format openai` writes it (CompileMessages written by wire.WriteOpenAIMessages: one row
// read and checked, each message written as it is decoded), with the same
// history one commit further (the checkpoint extended by one commit).
func benchCompileFresh(b *testing.B, newStore func(*testing.B) tract.Store) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := filled(b, newStore, n)
			ctx := context.Background()
			if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
				b.Fatal(err)
			}
			added := 0 // commits past the checkpoint (-count runs add more)
			// after0, after1: at the checkpoint's head, one commit past
			// it; annotated: and a message pinned after the checkpoint.
			for _, step := range []string{"after0", "after1", "annotated"} {
				b.Run(step, func(b *testing.B) {
					switch step {
					case "after1":
						if _, err := r.Commit(ctx, "main", benchMessages(1, n)[0]); err != nil {
							b.Fatal(err)
						}
						added++
					case "annotated":
						if _, err := r.Annotate(ctx, "main", fmt.Sprintf("HEAD~%d", n/2), tract.Pinned, ""); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportAllocs()
					cpu0, cpuOK := processCPU()
					defer func() {
						if cpu1, ok := processCPU(); ok && cpuOK && b.N > 0 {
							b.ReportMetric((cpu1-cpu0)*1e6/float64(b.N), "cpu-µs/op")
						}
					}()
					res, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
					if err != nil || len(res.Messages) != n+added {
						b.Fatal(err, len(res.Messages))
					}
					var want countWriter
					if err := wire.WriteOpenAI(&want, res, "  "); err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						fresh := tract.New(r.Store(), tract.Options{})
						var out countWriter
						if err := compileOpenAI(ctx, fresh, &out, "main", tract.CompileOptions{Uncounted: true}, "  "); err != nil || out != want {
							b.Fatal(err, out, want)
						}
					}
				})
			}
		})
	}
}

// countWriter counts what is written to it.
type countWriter int

func (w *countWriter) Write(p []byte) (int, error) {
	*w += countWriter(len(p))
	return len(p), nil
}

// benchCompileFirst: a cold compile that also has to count every
// blob's tokens (first compile after an import).
func benchCompileFirst10k(b *testing.B, newStore func(*testing.B) tract.Store) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := benchRepo(b, newStore)
		if _, err := r.Import(context.Background(), "main", benchMessages(10_000, 0)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.CompileCold(context.Background(), "main", tract.CompileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCompileWarmAfterAppend: the cached compile of a 100k-commit
// tract after one more append (target < 1 ms).
func benchCompileWarmAfterAppend100k(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := filled(b, newStore, 100_000)
	ctx := context.Background()
	if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := r.Commit(ctx, "main", benchMessages(1, i)[0]); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCommit: one append, one transaction.
func benchCommit(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := benchRepo(b, newStore)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Commit(ctx, "main", benchMessages(1, i)[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDelegationRoundTrip: spawn, 100 child commits, merge-from,
// compile the parent (upstream's copy-based equivalent: 0.40 s).
func benchDelegationRoundTrip(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := benchRepo(b, newStore)
	ctx := context.Background()
	if _, err := r.Import(ctx, "main", benchMessages(20, 0)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		child := fmt.Sprintf("child%d", i)
		if _, err := r.Spawn(ctx, "main", child, tract.SpawnOptions{Purpose: "research"}); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 100; j++ {
			if _, err := r.Commit(ctx, child, benchMessages(1, j)[0]); err != nil {
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

// benchGC100kNothingToCollect: a collection over 100k reachable commits.
func benchGC100kNothingToCollect(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := benchRepo(b, newStore)
	if _, err := r.Import(context.Background(), "main", benchMessages(100_000, 0)); err != nil {
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

// benchHistory10k: the store's share of a cold compile (one History
// read of 10k commits with their blobs).
func benchHistory10k(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := filled(b, newStore, 10_000)
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

// benchTouched100k: the commands of an agent's step on a 100k history read
// what they show (targets: merge-from ≤ 5 ms in process).
func benchTouched100k(b *testing.B, newStore func(*testing.B) tract.Store) {
	ctx := context.Background()
	r := benchRepo(b, newStore)
	if _, err := r.Import(ctx, "main", benchMessages(100_000, 0)); err != nil {
		b.Fatal(err)
	}
	if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"}); err != nil {
		b.Fatal(err)
	}
	b.Run("Log5", func(b *testing.B) {
		for b.Loop() {
			if log, err := r.Log(ctx, "main", tract.LogOptions{N: 5}); err != nil || len(log) != 5 {
				b.Fatal(len(log), err)
			}
		}
	})
	b.Run("ShowHEAD~50000", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Show(ctx, "main", "HEAD~50000"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CommitAndMergeFrom", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.Commit(ctx, "kid", benchMessages(1, 0)[0]); err != nil {
				b.Fatal(err)
			}
			if res, err := r.MergeFrom(ctx, "kid", ""); err != nil || res.Kind != tract.MergeCommit {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("MergeFromUpToDate", func(b *testing.B) {
		for b.Loop() {
			if res, err := r.MergeFrom(ctx, "kid", ""); err != nil || res.Kind != tract.MergeUpToDate {
				b.Fatal(res, err)
			}
		}
	})
}

// benchFresh100k: what a fresh process's status and find cost on 100k
// messages one commit past the compile checkpoint (a new Repo each time:
// no in-memory cache). Status takes its figure from the checkpoint's
// header and the commit after it; a rare word is found through the
// index; a common one in time order, stopping at the limit.
func benchFresh100k(b *testing.B, newStore func(*testing.B) tract.Store) {
	ctx := context.Background()
	r := filled(b, newStore, 100_000)
	if _, err := r.Commit(ctx, "main", benchMessages(1, 100_000)[0]); err != nil {
		b.Fatal(err)
	}
	b.Run("Status", func(b *testing.B) {
		for b.Loop() {
			st, err := tract.New(r.Store(), tract.Options{}).Status(ctx, "main")
			if err != nil || st.Tokens == 0 {
				b.Fatal(st.Tokens, err)
			}
		}
	})
	b.Run("FindRare", func(b *testing.B) {
		for b.Loop() {
			found, err := tract.New(r.Store(), tract.Options{}).Find(ctx, "main", tract.FindOptions{Text: "4242"})
			if err != nil || len(found) != 1 {
				b.Fatal(len(found), err)
			}
		}
	})
	b.Run("FindCommon5", func(b *testing.B) {
		for b.Loop() {
			found, err := tract.New(r.Store(), tract.Options{}).Find(ctx, "main", tract.FindOptions{Text: "fox", Limit: 5})
			if err != nil || len(found) != 5 {
				b.Fatal(len(found), err)
			}
		}
	})
}
