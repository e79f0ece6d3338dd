package storetest

import (
	"errors"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/go-json-experiment/json"
)

func init() {
	suites = append(suites, []testCase{
		{"CompileBasics", testCompileBasics},
		{"CompileToolCalls", testCompileToolCalls},
		{"TokenAccounting", testTokenAccounting},
		{"BadInputStoresNothing", testBadInput},
		{"Edit", testEdit},
		{"EditRules", testEditRules},
		{"Annotations", testAnnotations},
		{"NamedInstructions", testNamedInstructions},
		{"Budget", testBudget},
		{"BudgetToolCallsDroppedTogether", testBudgetToolCalls},
		{"BudgetPinnedTooBig", testBudgetPinned},
		{"TimeTravel", testTimeTravel},
		{"AnthropicFormat", testAnthropic},
	})
}

func testCompileBasics(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	equal(t, e.texts("main"), "")
	e.add("main", tract.TypeInstruction, "", "be brief")
	e.user("main", "hello")
	e.add("main", tract.TypeMessage, "assistant", "hi")
	e.add("main", tract.TypeReasoning, "", "thinking hard")
	e.add("main", tract.TypeMetadata, "", "run=7")
	e.add("main", tract.TypeArtifact, "", "file contents")
	res := e.compile("main", tract.CompileOptions{})
	equal(t, texts(res), "system: be brief\nuser: hello\nassistant: hi\nuser: file contents\n")
	wantPrio := []tract.Priority{tract.Pinned, tract.Normal, tract.Normal, tract.Normal}
	for i, m := range res.Messages {
		if m.Priority != wantPrio[i] {
			t.Errorf("message %d priority %s, want %s", i, m.Priority, wantPrio[i])
		}
		if m.Tract != "main" || m.Commit == "" {
			t.Errorf("message %d provenance %q %q", i, m.Tract, m.Commit)
		}
	}
	if res.Head != e.head("main") || res.Tract != "main" || res.Encoding != "o200k_base" {
		t.Errorf("result header %+v", res)
	}
	if res.Dropped == nil {
		res.Dropped = []tract.Dropped{}
	}
}

func testCompileToolCalls(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "weather?")
	_, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolCall,
		ToolCalls: []tract.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Oslo"}`}}}})
	e.must(err)
	_, err = e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: "c1", Text: "rain"}})
	e.must(err)
	res := e.compile("main", tract.CompileOptions{})
	b, err := json.Marshal(wire.OpenAI(res.Messages))
	e.must(err)
	equal(t, string(b), `[{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]},{"role":"tool","content":"rain","tool_call_id":"c1"}]`)
}

func testTokenAccounting(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "hello world") // 2 tokens in o200k_base and cl100k_base
	_, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Name: "ann", Text: "hello world"}})
	e.must(err)
	for _, enc := range []string{"", "cl100k_base"} {
		res := e.compile("main", tract.CompileOptions{Encoding: enc})
		if res.Messages[0].Tokens != 5 || res.Messages[1].Tokens != 6 || res.Tokens != 14 {
			t.Errorf("%q: tokens %d+%d total %d, want 5+6 total 14", enc, res.Messages[0].Tokens, res.Messages[1].Tokens, res.Tokens)
		}
	}
	_, err = e.repo.Compile(e.ctx, "main", tract.CompileOptions{Encoding: "nope"})
	wantValidation(t, err, "unknown token encoding")
}

func testBadInput(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	first := e.user("main", "one")
	before := e.commitCount()
	cases := []struct {
		content tract.Content
		want    string
	}{
		{tract.Content{Type: "chat", Text: "x"}, `invalid type "chat": unknown content type`},
		{tract.Content{Type: tract.TypeMessage, Role: "robot", Text: "x"}, `invalid role "robot"`},
		{tract.Content{Type: tract.TypeInstruction, Role: "user", Text: "x"}, `invalid role "user": not allowed for instruction`},
		{tract.Content{Type: tract.TypeToolResult, Text: "x"}, "needs the id of the tool call"},
		{tract.Content{Type: tract.TypeToolCall}, "needs at least one call"},
		{tract.Content{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: "a", Name: "f", Arguments: "[1]"}}}, "not a JSON object"},
	}
	for _, c := range cases {
		_, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: c.content})
		wantValidation(t, err, c.want)
	}
	_, err := e.repo.Import(e.ctx, "main", []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeMessage, Text: "fine"}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: "robot"}},
	})
	wantValidation(t, err, "message 2: invalid role")
	_, err = e.repo.Edit(e.ctx, "main", "ffffffffffff", "x", "")
	wantErr(t, err, tract.ErrNotFound, "ffffffffffff")
	_, err = e.repo.Annotate(e.ctx, "main", string(first), "urgent", "")
	wantValidation(t, err, `invalid priority "urgent"`)
	_, err = e.repo.CreateBranch(e.ctx, "main", "bad..name", "")
	wantValidation(t, err, `invalid branch name "bad..name"`)
	_, err = e.repo.Commit(e.ctx, "nosuch", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "x"}})
	wantErr(t, err, tract.ErrNotFound, `tract "nosuch"`)
	if n := e.commitCount(); n != before {
		t.Fatalf("bad input stored %d commits", n-before)
	}
	if h := e.head("main"); h != first {
		t.Fatalf("head moved to %s", h)
	}
}

func testEdit(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	e.user("main", "two")
	_, err := e.repo.Edit(e.ctx, "main", string(a), "ONE", "fix")
	e.must(err)
	equal(t, e.texts("main"), "user: ONE\nuser: two\n")
	_, err = e.repo.Edit(e.ctx, "main", string(a)[:8], "Uno", "")
	e.must(err)
	e.user("main", "three")
	equal(t, e.texts("main"), "user: Uno\nuser: two\nuser: three\n")
}

func testEditRules(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	ed, err := e.repo.Edit(e.ctx, "main", string(a), "ONE", "")
	e.must(err)
	before := e.commitCount()
	_, err = e.repo.Edit(e.ctx, "main", string(ed.Hash), "again", "")
	wantValidation(t, err, "is an edit; edit the original commit instead")
	_, err = e.repo.NewTract(e.ctx, "other")
	e.must(err)
	e.user("other", "theirs")
	_, err = e.repo.Edit(e.ctx, "other", string(a), "mine now", "")
	wantValidation(t, err, "belongs to another tract")
	if e.commitCount() != before+1 {
		t.Fatalf("rejected edits stored commits")
	}
}

func testAnnotations(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	e.user("main", "two")
	_, err := e.repo.Annotate(e.ctx, "main", string(a), tract.Skip, "noise")
	e.must(err)
	equal(t, e.texts("main"), "user: two\n")
	_, err = e.repo.Annotate(e.ctx, "main", string(a), tract.Important, "")
	e.must(err)
	res := e.compile("main", tract.CompileOptions{})
	equal(t, texts(res), "user: one\nuser: two\n")
	if res.Messages[0].Priority != tract.Important {
		t.Errorf("newest annotation did not win: %s", res.Messages[0].Priority)
	}
	r, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeReasoning, Text: "visible thought"}, Priority: tract.Normal})
	e.must(err)
	equal(t, e.texts("main"), "user: one\nuser: two\nassistant: visible thought\n")
	shown, err := e.repo.Show(e.ctx, "main", string(r.Hash))
	e.must(err)
	if len(shown.Annotations) != 1 || shown.Annotations[0].Priority != tract.Normal {
		t.Errorf("show annotations %+v", shown.Annotations)
	}
}

func testNamedInstructions(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	named := func(name, text string) {
		_, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Name: name, Text: text}})
		e.must(err)
	}
	named("style", "be terse")
	e.user("main", "q1")
	named("tools", "use grep")
	e.compile("main", tract.CompileOptions{}) // warm the cache
	e.user("main", "q2")
	named("style", "be verbose")
	e.user("main", "q3")
	equal(t, e.texts("main"), "user: q1\nsystem: use grep\nuser: q2\nsystem: be verbose\nuser: q3\n")
}

func testBudget(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "sys")
	old := e.user("main", "old normal message")
	imp := e.user("main", "important message")
	_, err := e.repo.Annotate(e.ctx, "main", string(imp), tract.Important, "")
	e.must(err)
	e.user("main", "newer normal message")
	full := e.compile("main", tract.CompileOptions{})
	m := full.Messages
	// Room for everything but the oldest normal message.
	res := e.compile("main", tract.CompileOptions{Budget: full.Tokens - 1})
	equal(t, texts(res), "system: sys\nuser: important message\nuser: newer normal message\n")
	if len(res.Dropped) != 1 || res.Dropped[0].Commit != old || res.Dropped[0].Tokens != m[1].Tokens {
		t.Fatalf("dropped %+v", res.Dropped)
	}
	if res.Tokens != full.Tokens-m[1].Tokens || *res.Budget != full.Tokens-1 {
		t.Fatalf("tokens %d budget %d", res.Tokens, *res.Budget)
	}
	// Normal ones all go before the important one.
	res = e.compile("main", tract.CompileOptions{Budget: m[0].Tokens + m[2].Tokens + 3})
	equal(t, texts(res), "system: sys\nuser: important message\n")
	if len(res.Dropped) != 2 {
		t.Fatalf("dropped %+v", res.Dropped)
	}
	res = e.compile("main", tract.CompileOptions{Budget: m[0].Tokens + 3})
	equal(t, texts(res), "system: sys\n")
	res = e.compile("main", tract.CompileOptions{Budget: full.Tokens})
	if len(res.Dropped) != 0 || len(res.Messages) != 4 {
		t.Fatalf("exact budget dropped %+v", res.Dropped)
	}
}

func testBudgetToolCalls(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	_, err := e.repo.Import(e.ctx, "main", []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: "c1", Name: "ls", Arguments: "{}"}, {ID: "c2", Name: "pwd"}}}},
		{Content: tract.Content{Type: tract.TypeMessage, Text: "between"}},
		{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: "c1", Text: "a b c"}},
		{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: "c2", Text: "/tmp"}},
		{Content: tract.Content{Type: tract.TypeMessage, Text: "last"}},
	})
	e.must(err)
	full := e.compile("main", tract.CompileOptions{})
	res := e.compile("main", tract.CompileOptions{Budget: full.Tokens - 1})
	equal(t, texts(res), "user: between\nuser: last\n")
	if len(res.Dropped) != 3 || res.Dropped[0].Type != tract.TypeToolCall || res.Dropped[2].Type != tract.TypeToolResult {
		t.Fatalf("dropped %+v", res.Dropped)
	}
}

func testBudgetPinned(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "a long pinned system instruction")
	e.user("main", "hi")
	full := e.compile("main", tract.CompileOptions{})
	need := full.Messages[0].Tokens + 3
	_, err := e.repo.Compile(e.ctx, "main", tract.CompileOptions{Budget: need - 1})
	var be *tract.BudgetError
	if !errors.As(err, &be) || be.Needed != need || len(be.Kept) != 1 || be.Kept[0].Commit != full.Messages[0].Commit {
		t.Fatalf("err %v, want BudgetError needing %d", err, need)
	}
	wantErr(t, err, nil, "pinned messages need")
}

func testTimeTravel(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "one")
	e.user("main", "two")
	_, err := e.repo.Edit(e.ctx, "main", string(a), "ONE", "")
	e.must(err)
	equal(t, texts(e.compile("main", tract.CompileOptions{At: "HEAD~1"})), "user: one\nuser: two\n")
	equal(t, texts(e.compile("main", tract.CompileOptions{At: string(a)})), "user: one\n")
	equal(t, e.texts("main"), "user: ONE\nuser: two\n")
}

func testAnthropic(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	_, err := e.repo.Import(e.ctx, "main", []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeInstruction, Text: "sys one"}},
		{Content: tract.Content{Type: tract.TypeMessage, Text: "q"}},
		{Content: tract.Content{Type: tract.TypeMessage, Text: "more q"}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: "system", Text: "sys two"}},
		{Content: tract.Content{Type: tract.TypeToolCall, Text: "looking", ToolCalls: []tract.ToolCall{{ID: "t1", Name: "f", Arguments: `{"x":1}`}}}},
		{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: "t1", Text: "42"}},
		{Content: tract.Content{Type: tract.TypeMessage, Text: "thanks"}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "done"}},
	})
	e.must(err)
	a := wire.ToAnthropic(e.compile("main", tract.CompileOptions{}).Messages)
	b, err := json.Marshal(a)
	e.must(err)
	equal(t, string(b), `{"system":"sys one\n\nsys two","messages":[`+
		`{"role":"user","content":[{"type":"text","text":"q"},{"type":"text","text":"more q"}]},`+
		`{"role":"assistant","content":[{"type":"text","text":"looking"},{"type":"tool_use","id":"t1","name":"f","input":{"x":1}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"42"},{"type":"text","text":"thanks"}]},`+
		`{"role":"assistant","content":[{"type":"text","text":"done"}]}]}`)
}
