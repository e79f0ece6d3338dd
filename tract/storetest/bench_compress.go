package storetest

import (
	"context"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// benchCompress10k: a real compress of ten messages of a 10k history, the
// context warm as between an agent's steps; each round compresses the next
// ten older messages (the agent's loop: plan, summarize, compress, go on).
func benchCompress10k(b *testing.B, newStore func(*testing.B) tract.Store) {
	const n = 10_000
	r := benchRepo(b, newStore)
	ctx := context.Background()
	commits, err := r.Import(ctx, "main", benchMessages(n, 0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Ranges walk down from the newest messages; past the bottom they
		// start again at the top and nest over the earlier summaries.
		top := n - 1 - 10*(i%(n/10-1))
		rng := string(commits[top-9].Hash) + ".." + string(commits[top].Hash)
		if _, err := r.Compress(ctx, "main", tract.CompressOptions{Range: rng, Summary: "Ten messages about a fox."}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCompressDryRun10k: compress --dry-run of a range in the middle of a
// 10k history, the context warm.
func benchCompressDryRun10k(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := filled(b, newStore, 10_000)
	ctx := context.Background()
	if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	o := tract.CompressOptions{Range: "HEAD~5010..HEAD~5000", Summary: "Eleven messages about a fox.", DryRun: true}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := r.Compress(ctx, "main", o); err != nil || len(res.Replaced) != 11 {
			b.Fatal(err, len(res.Replaced))
		}
	}
}

// benchCompressPlan10k: compress --plan of a 10k history to half its
// tokens (a range of about 5,000 messages and their texts), the context warm.
func benchCompressPlan10k(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := filled(b, newStore, 10_000)
	ctx := context.Background()
	res, err := r.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := r.PlanCompress(ctx, "main", tract.PlanOptions{Budget: res.Tokens / 2})
		if err != nil || len(p.Ranges) != 1 || !p.Fits {
			b.Fatal(err, p.Fits)
		}
	}
}

// benchDiff10k: diff HEAD~10 HEAD of a 10k history (two compiles and the
// comparison), the context at HEAD warm.
func benchDiff10k(b *testing.B, newStore func(*testing.B) tract.Store) {
	r := filled(b, newStore, 10_000)
	ctx := context.Background()
	if _, err := r.Compile(ctx, "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := r.Diff(ctx, "main", "HEAD~10", tract.HeadRef, "")
		if err != nil || len(d.Changes) != 10 {
			b.Fatal(err, len(d.Changes))
		}
	}
}
