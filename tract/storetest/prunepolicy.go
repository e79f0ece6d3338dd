package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"PrunePolicy", testPrunePolicy},
	})
}

// pruneFixture is two turns of tool work: the first turn has a failed
// step (reasoning, a call, its failed result) and a good large result, the
// second a small result.
type pruneFixture struct {
	reason, failCall, failResult, bigCall, bigResult, smallCall, smallResult tract.Hash
}

func (e *env) pruneFixture() pruneFixture {
	e.t.Helper()
	var f pruneFixture
	call := func(id string) tract.Hash {
		c, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolCall,
			ToolCalls: []tract.ToolCall{{ID: id, Name: "sh", Arguments: `{"cmd":"` + id + `"}`}}}})
		e.must(err)
		return c.Hash
	}
	result := func(id, text string, failed bool) tract.Hash {
		req := tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: id, Text: text}}
		if failed {
			req.Meta = []byte(`{"isError":true,"kind":"tool_result"}`)
		}
		c, err := e.repo.Commit(e.ctx, "main", req)
		e.must(err)
		return c.Hash
	}
	e.add("main", tract.TypeMessage, "user", "fix the parser")
	f.reason = e.add("main", tract.TypeReasoning, "", "try the missing tool")
	// Reasoning compiles only when annotated so.
	_, err := e.repo.Annotate(e.ctx, "main", string(f.reason), tract.Normal, "shown")
	e.must(err)
	f.failCall = call("c1")
	f.failResult = result("c1", "command not found: parsetool", true)
	f.bigCall = call("c2")
	f.bigResult = result("c2", strings.Repeat("parser.go line of output ", 40), false)
	e.add("main", tract.TypeMessage, "assistant", "the loop stops one token early")
	e.add("main", tract.TypeMessage, "user", "fix it")
	f.smallCall = call("c3")
	f.smallResult = result("c3", "ok", false)
	e.add("main", tract.TypeMessage, "assistant", "fixed")
	return f
}

func prunedOf(res tract.Result) map[tract.Hash]string {
	out := map[tract.Hash]string{}
	for _, p := range res.Pruned {
		out[p.Commit] = p.Rule
	}
	return out
}

func hasCommit(res tract.Result, h tract.Hash) bool {
	return slices.ContainsFunc(res.Messages, func(m tract.Message) bool { return m.Commit == h })
}

// testPrunePolicy: a compile-time prune policy leaves out what `tract prune
// --tool-results` of the same filters would annotate and, with failed
// turns, each failed step (its result, its call, the reasoning before it);
// the store and the plain compile are untouched, the budget counts only
// what is left, and the policy round-trips through tract config.
func testPrunePolicy(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	f := e.pruneFixture()
	plain := e.compile("main", tract.CompileOptions{})

	older := tract.PrunePolicy{ToolResults: true, OlderThan: 1}
	res := e.compile("main", tract.CompileOptions{Prune: &older})
	if got := prunedOf(res); len(got) != 2 || got[f.failResult] != tract.ToolResultsRule || got[f.bigResult] != tract.ToolResultsRule {
		t.Fatalf("older-than 1 pruned %v", got)
	}
	saved := 0
	for _, p := range res.Pruned {
		saved += p.Tokens
	}
	if res.Tokens != plain.Tokens-saved || len(res.Messages) != len(plain.Messages)-2 || !hasCommit(res, f.smallResult) {
		t.Fatalf("older-than 1: %d tokens of %d (saved %d), %d messages of %d", res.Tokens, plain.Tokens, saved, len(res.Messages), len(plain.Messages))
	}
	dry, err := e.repo.Prune(e.ctx, "main", tract.PruneOptions{OlderThan: 1, DryRun: true})
	e.must(err)
	if len(dry.Pruned) != 2 || dry.Pruned[0].Commit != f.failResult || dry.Pruned[1].Commit != f.bigResult {
		t.Fatalf("tract prune of the same filters selects %+v", dry.Pruned)
	}

	large := tract.PrunePolicy{ToolResults: true, LargerThan: 50}
	if got := prunedOf(e.compile("main", tract.CompileOptions{Prune: &large})); len(got) != 1 || got[f.bigResult] == "" {
		t.Fatalf("larger-than 50 pruned %v", got)
	}
	keep := tract.PrunePolicy{ToolResults: true, KeepLast: 2}
	if got := prunedOf(e.compile("main", tract.CompileOptions{Prune: &keep})); len(got) != 1 || got[f.failResult] == "" {
		t.Fatalf("keep-last 2 pruned %v", got)
	}

	failed := tract.PrunePolicy{FailedTurns: true}
	res = e.compile("main", tract.CompileOptions{Prune: &failed})
	want := map[tract.Hash]string{f.reason: tract.FailedTurnsRule, f.failCall: tract.FailedTurnsRule, f.failResult: tract.FailedTurnsRule}
	if got := prunedOf(res); len(got) != 3 || got[f.reason] != want[f.reason] || got[f.failCall] != want[f.failCall] || got[f.failResult] != want[f.failResult] {
		t.Fatalf("failed turns pruned %v, want %v", got, want)
	}
	if !hasCommit(res, f.bigCall) || !hasCommit(res, f.bigResult) || res.Messages[0].Content != "fix the parser" {
		t.Fatalf("failed turns left out more than the failed step: %+v", res.Messages)
	}

	// A budget counts only what the prune left: the pruned messages are
	// not also listed as dropped, and a budget the plain compile misses
	// is met.
	both := tract.PrunePolicy{ToolResults: true, OlderThan: 1, FailedTurns: true}
	full := e.compile("main", tract.CompileOptions{Prune: &both})
	budgeted := e.compile("main", tract.CompileOptions{Prune: &both, Budget: full.Tokens})
	if len(budgeted.Dropped) != 0 || budgeted.Tokens != full.Tokens || len(budgeted.Pruned) != 4 {
		t.Fatalf("budget of the pruned size: dropped %v, %d tokens, pruned %v", budgeted.Dropped, budgeted.Tokens, budgeted.Pruned)
	}
	if again := e.compile("main", tract.CompileOptions{}); again.Tokens != plain.Tokens || len(again.Pruned) != 0 {
		t.Fatalf("a compile without the policy after it: %d tokens, pruned %v", again.Tokens, again.Pruned)
	}

	e.checkPrunedWindows([]tract.PrunePolicy{older, large, keep, failed, both}, full.Tokens)

	// Stored: parsed, written in one form, read back; none removes it.
	cfg, err := e.repo.SetConfig(e.ctx, "main", "prune", "failed-turns,larger-than=50 tool-results")
	e.must(err)
	if cfg.Prune != "tool-results larger-than=50 failed-turns" || cfg.PrunePolicy() != (tract.PrunePolicy{ToolResults: true, LargerThan: 50, FailedTurns: true}) {
		t.Fatalf("stored policy %q", cfg.Prune)
	}
	for _, bad := range []string{"older-than=3", "tool-results older-than=-1", "results", "tool-results keep-last=x"} {
		_, err := e.repo.SetConfig(e.ctx, "main", "prune", bad)
		wantValidation(t, err, "prune")
	}
	cfg, err = e.repo.SetConfig(e.ctx, "main", "prune", "none")
	e.must(err)
	if cfg.Prune != "" {
		t.Fatalf("prune none: %+v", cfg)
	}
}

// checkPrunedWindows stores main's compile checkpoint and reads windows
// of its compile under each policy, with no budget and a tight one: each
// is the window of the pruned whole compile (its figures, messages,
// pruned and dropped messages with their rules).
func (e *env) checkPrunedWindows(policies []tract.PrunePolicy, tight int) {
	e.t.Helper()
	_, err := tract.New(e.store, tract.Options{Now: e.clock.Now, CheckpointEvery: 1}).CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	cold := tract.New(e.store, tract.Options{NoCheckpoints: true})
	for _, p := range policies {
		for _, budget := range []int{0, tight - 1} {
			o := tract.CompileOptions{Prune: &p, Budget: budget}
			want, werr := cold.CompileCold(e.ctx, "main", o)
			got, err := tract.New(e.store, tract.Options{}).CompileWindow(e.ctx, "main", o, tract.WindowOptions{From: -1, N: 3, Dropped: 10})
			if (err == nil) != (werr == nil) {
				e.t.Fatalf("%s budget %d: window error %v, compile error %v", p, budget, err, werr)
			}
			if err != nil {
				continue
			}
			tail := want.Messages[max(0, len(want.Messages)-3):]
			if got.Count != len(want.Messages) || got.Tokens != want.Tokens || got.PrunedCount != len(want.Pruned) ||
				!slices.Equal(got.Pruned, want.Pruned) || !slices.Equal(got.Dropped, want.Dropped) || len(got.Messages) != len(tail) {
				e.t.Fatalf("%s budget %d: window %d messages, %d tokens, pruned %v, dropped %v; want %d, %d, %v, %v",
					p, budget, got.Count, got.Tokens, got.Pruned, got.Dropped, len(want.Messages), want.Tokens, want.Pruned, want.Dropped)
			}
			for i := range tail {
				if got.Messages[i].Commit != tail[i].Commit || got.Messages[i].Content != tail[i].Content {
					e.t.Fatalf("%s budget %d: window message %d is %+v, want %+v", p, budget, i, got.Messages[i], tail[i])
				}
			}
		}
	}
}
