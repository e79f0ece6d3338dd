package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
	"pgregory.net/rapid"
)

func init() {
	suites = append(suites, []testCase{
		{"CompressOverlapRefused", testCompressOverlapRefused},
		{"CompressNeverLosesContext", testCompressNeverLoses},
		{"CompressUncounted", testCompressUncounted},
	})
}

// testCompressUncounted: a compress for a caller that reads no token
// figure (an importer) never calls the tokenizer, reports -1 tokens, and
// compiles as a counted compress does.
func testCompressUncounted(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	hs := compressFixture(e)
	var calls atomic.Int64
	counting := func(enc string) (tokens.Counter, error) {
		c, err := tokens.Get(enc)
		if err != nil {
			return nil, err
		}
		return tokens.Func{Name: c.Encoding(), Fn: func(s string) int { calls.Add(1); return c.Count(s) }}, nil
	}
	rng := string(hs[1]) + ".." + string(hs[4])
	o := tract.CompressOptions{Range: rng, Summary: "We talked about tracts.", Uncounted: true}
	un, err := tract.New(e.store, tract.Options{Tokenizer: counting, Now: e.clock.Now}).Compress(e.ctx, "main", o)
	e.must(err)
	if calls.Load() != 0 || un.TokensBefore != -1 || un.TokensAfter != -1 {
		t.Fatalf("uncounted compress: %d tokenizer calls, tokens %d → %d; want 0, -1 → -1", calls.Load(), un.TokensBefore, un.TokensAfter)
	}
	if want := []tract.Hash{hs[1], hs[2], hs[4]}; !slices.Equal(un.Replaced, want) || !slices.Equal(un.Kept, []tract.Hash{hs[3]}) {
		t.Fatalf("replaced %v kept %v, want %v and [%s]", un.Replaced, un.Kept, want, hs[3])
	}
	got := e.compile("main", tract.CompileOptions{})
	// The same compress, counted, on a second store holding the same messages.
	e2 := setup(t, newStore)
	hs2 := compressFixture(e2)
	o.Uncounted = false
	o.Range = string(hs2[1]) + ".." + string(hs2[4])
	counted, err := e2.repo.Compress(e2.ctx, "main", o)
	e2.must(err)
	want := e2.compile("main", tract.CompileOptions{})
	if counted.TokensAfter != want.Tokens || texts(got) != texts(want) || got.Tokens != want.Tokens {
		t.Fatalf("uncounted compress compiles to\n%s(%d tokens), counted to\n%s(%d tokens, reported %d)", texts(got), got.Tokens, texts(want), want.Tokens, counted.TokensAfter)
	}
}

// testCompressOverlapRefused: A = m2..m4 then B = m3..m5 used to compile as
// m1 B m6 (m2 nowhere). A range that partly overlaps, or lies inside, a
// summary's range is refused; one holding it whole replaces it; an adjacent
// one sits beside it. A skip taken back cannot bring the loss about either.
func testCompressOverlapRefused(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	m := []tract.Hash{""}
	for i := 1; i <= 7; i++ {
		m = append(m, e.user("main", fmt.Sprintf("m%d", i)))
	}
	rng := func(a, b int) string { return string(m[a]) + ".." + string(m[b]) }
	a, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng(2, 4), Summary: "A"})
	e.must(err)
	equal(t, e.texts("main"), "user: m1\nuser: A\nuser: m5\nuser: m6\nuser: m7\n")
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng(3, 5), Summary: "B"})
	wantValidation(t, err, "partly overlaps the range of summary "+a.Commit.Short())
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng(1, 3), Summary: "B", DryRun: true})
	wantValidation(t, err, "partly overlaps")
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng(3, 4), Summary: "B"})
	wantValidation(t, err, "lies inside the range of summary "+a.Commit.Short())
	// Adjacent: beside A.
	_, err = e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: rng(5, 6), Summary: "C"})
	e.must(err)
	equal(t, e.texts("main"), "user: m1\nuser: A\nuser: C\nuser: m7\n")

	// A skip taken back: A skipped, B over m3..m5 allowed, A back. The
	// earlier summary keeps its range; B, partly overlapping, is left out.
	e2 := setup(t, newStore)
	n := []tract.Hash{""}
	for i := 1; i <= 6; i++ {
		n = append(n, e2.user("main", fmt.Sprintf("m%d", i)))
	}
	a2, err := e2.repo.Compress(e2.ctx, "main", tract.CompressOptions{Range: string(n[2]) + ".." + string(n[4]), Summary: "A"})
	e2.must(err)
	_, err = e2.repo.Annotate(e2.ctx, "main", string(a2.Commit), tract.Skip, "")
	e2.must(err)
	_, err = e2.repo.Compress(e2.ctx, "main", tract.CompressOptions{Range: string(n[3]) + ".." + string(n[5]), Summary: "B"})
	e2.must(err)
	equal(t, e2.texts("main"), "user: m1\nuser: m2\nuser: B\nuser: m6\n")
	_, err = e2.repo.Annotate(e2.ctx, "main", string(a2.Commit), tract.Normal, "")
	e2.must(err)
	equal(t, e2.texts("main"), "user: m1\nuser: A\nuser: m5\nuser: m6\n")
}

// testCompressNeverLoses compresses random ranges of a chain of messages —
// overlapping, nested, adjacent — and skips and restores summaries; after
// every step each message is either compiled or inside the range of
// exactly one compiled summary.
func testCompressNeverLoses(t *testing.T, newStore Factory) {
	rapid.Check(t, func(rt *rapid.T) {
		e := setup(t, newStore)
		// Closed with each case, not with the test: a hundred open stores
		// hold a hundred PostgreSQL connections.
		defer e.store.Close()
		n := rapid.IntRange(3, 9).Draw(rt, "messages")
		var chain []tract.Hash // first-parent history, oldest first
		pos := map[tract.Hash]int{}
		add := func(text string) {
			h := e.user("main", text)
			pos[h] = len(chain)
			chain = append(chain, h)
		}
		for i := 0; i < n; i++ {
			add(fmt.Sprintf("m%d", i))
		}
		pinned := rapid.IntRange(-1, n-1).Draw(rt, "pinned")
		if pinned >= 0 {
			_, err := e.repo.Annotate(e.ctx, "main", string(chain[pinned]), tract.Pinned, "")
			e.must(err)
		}
		spans := map[tract.Hash]compressSpan{}
		var sums []tract.Hash
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			switch op := rapid.SampledFrom([]string{"compress", "compress", "compress", "skip", "restore", "append"}).Draw(rt, "op"); op {
			case "compress":
				i := rapid.IntRange(0, len(chain)-1).Draw(rt, "from")
				j := rapid.IntRange(i, len(chain)-1).Draw(rt, "to")
				res, err := e.repo.Compress(e.ctx, "main", tract.CompressOptions{Range: string(chain[i]) + ".." + string(chain[j]), Summary: fmt.Sprintf("S%d", s)})
				var ve *tract.ValidationError
				if errors.As(err, &ve) {
					continue
				}
				e.must(err)
				spans[res.Commit] = compressSpan{i, j}
				sums = append(sums, res.Commit)
				pos[res.Commit] = len(chain)
				chain = append(chain, res.Commit)
			case "skip", "restore":
				if len(sums) == 0 {
					continue
				}
				p := tract.Skip
				if op == "restore" {
					p = tract.Normal
				}
				_, err := e.repo.Annotate(e.ctx, "main", string(rapid.SampledFrom(sums).Draw(rt, "summary")), p, "")
				e.must(err)
			case "append":
				add(fmt.Sprintf("a%d", s))
			}
			checkNothingLost(rt, s, e.compile("main", tract.CompileOptions{}), chain, pos, spans, pinned)
		}
	})
}

// compressSpan is the positions (in the first-parent history, oldest
// first) of the first and last message a summary replaced.
type compressSpan struct{ from, to int }

// checkNothingLost fails step s unless res shows every message of chain
// (pos: each one's position) exactly once: itself, when no shown summary
// covers it or it is pinned, else inside one shown summary's range.
func checkNothingLost(rt *rapid.T, s int, res tract.Result, chain []tract.Hash, pos map[tract.Hash]int, spans map[tract.Hash]compressSpan, pinned int) {
	shown := map[tract.Hash]bool{}
	var live []compressSpan
	for _, m := range res.Messages {
		if m.Type == tract.TypeSummary {
			live = append(live, spans[m.Commit])
		} else {
			shown[m.Commit] = true
		}
	}
	for _, h := range chain {
		if _, isSum := spans[h]; isSum {
			continue
		}
		in := 0
		for _, sp := range live {
			if sp.from <= pos[h] && pos[h] <= sp.to {
				in++
			}
		}
		if shown[h] && (in == 0 || pos[h] == pinned) || !shown[h] && in == 1 {
			continue
		}
		rt.Fatalf("step %d: %s (position %d) compiled %v, inside %d summaries' ranges %v:\n%s", s, h.Short(), pos[h], shown[h], in, live, texts(res))
	}
	if slices.ContainsFunc(res.Messages, func(m tract.Message) bool { return m.Type == tract.TypeSummary && len(m.Summarizes) == 0 }) {
		rt.Fatalf("step %d: a summary stands in for nothing:\n%s", s, texts(res))
	}
}
