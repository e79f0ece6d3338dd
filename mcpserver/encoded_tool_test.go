package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/tract"
)

// contextTestServers are two servers on one project and store: srv
// registers context_compile as New does (addEncodedTool), typed only
// context_compile, through the SDK's typed mcp.AddTool (addTool).
func contextTestServers(t *testing.T, opts Options) (srv, typed *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	dir := agentsProject(t)
	_, repo := newStore(t)
	for _, c := range []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are terse & <careful>."}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "Fix the bug in lib."}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: "Fixed: the \"nil\" map.\n/ and done"}},
	} {
		if _, err := repo.Commit(ctx, "main", c); err != nil {
			t.Fatal(err)
		}
	}
	opts.Cwd, opts.StateDir = dir, t.TempDir()
	opts.OpenTract = func(context.Context) (*tract.Repo, error) { return repo, nil }
	s1, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s2.srv = mcp.NewServer(&mcp.Implementation{Name: "lineage", Title: "lineage", Version: "devel"}, nil)
	addTool(s2, contextTool(), s2.toolContext)
	return inProcess(t, s1), inProcess(t, s2)
}

// contextAccepted is how many of contextCalls are answered.
const contextAccepted = 7

// contextCalls are arguments context_compile accepts and refuses: every
// format, budgets, no tract, and arguments the input schema or the
// compile rejects.
var contextCalls = []map[string]any{
	{},
	{"target": "sub/deep", "slug": "tau", "tract": "main"},
	{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 4000, "format": "openai-request", "model": "m"},
	{"target": "sub/deep", "tract": "main", "format": "anthropic-request", "model": "m", "maxTokens": 64},
	{"tract": "main", "format": "anthropic", "budget": 300},
	{"tract": "main", "format": "text", "encoding": "cl100k_base"},
	{"slug": "tau", "format": "openai"},
	// Refused by the input schema (from here on, every call is refused).
	{"format": "xml"},
	{"budget": "x"},
	{"budget": 1.5},
	{"slug": 5},
	{"Budget": 5},
	{"unknown": true},
	// Refused by the compile.
	{"target": "/"},
	{"target": "no/where"}, // a file not written yet is compiled from its folder; a missing folder is refused
	{"slug": "nobody"},
	{"tract": "nope"},
	{"budget": -1},
	{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 20},
	{"encoding": "p50k"},
}

// context_compile registered through the SDK's lower-level AddTool is the
// tool the typed API registers: listed byte for byte alike, and every call
// — results and refusals — answered alike (texts, codes, structured
// content).
func TestEncodedToolAsTheTypedAPI(t *testing.T) {
	ctx := context.Background()
	srv, typed := contextTestServers(t, Options{})
	listed := func(cs *mcp.ClientSession) string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "context_compile" {
				b, err := json.Marshal(tool)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
		}
		t.Fatal("context_compile not listed")
		return ""
	}
	if got, want := listed(srv), listed(typed); got != want {
		t.Errorf("listed:\n%s\nthe typed API lists:\n%s", got, want)
	}
	// Twice: the second time the encoded tool finds the inputs of the
	// arguments it decoded (argsMemo); refusals are decided again.
	for i, args := range append(contextCalls[:len(contextCalls):len(contextCalls)], contextCalls...) {
		i %= len(contextCalls)
		answer := func(cs *mcp.ClientSession) any {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: args})
			if err != nil {
				return err.Error()
			}
			var v any
			if err := remarshal(res, &v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		got, want := answer(srv), answer(typed)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: answered differently from the typed API (-typed +encoded):\n%s", args, diff)
		}
		if refused := got.(map[string]any)["isError"] == true; refused != (i >= contextAccepted) {
			t.Errorf("%v: refused %v: %.300v", args, refused, got)
		}
	}
}

// Since the SDK no longer checks context_compile's structured results,
// this test does: real results — every format, with and without a budget,
// tract, agent, and with the request inline or in the resource — validate
// against the declared output schema (jsonschema-go, as the SDK would).
// A result with a wrong field does not: the check bites.
func TestEncodedToolResultsMatchTheirSchema(t *testing.T) {
	ctx := context.Background()
	schema, err := contextTool().OutputSchema.(*jsonschema.Schema).Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	inline := map[bool]int{}
	for _, max := range []int{0, 60} {
		srv, _ := contextTestServers(t, Options{MaxResultTokens: max})
		for _, args := range contextCalls {
			res, err := srv.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: args})
			if err != nil || res.IsError {
				continue
			}
			var out ContextOutput
			if err := remarshal(res.StructuredContent, &out); err != nil {
				t.Fatal(err)
			}
			inline[out.Inline]++
			if err := schema.Validate(res.StructuredContent); err != nil {
				t.Errorf("%v (limit %d): the structured result does not match the output schema: %v", args, max, err)
			}
			bad := map[string]any{}
			if err := remarshal(res.StructuredContent, &bad); err != nil {
				t.Fatal(err)
			}
			bad["inline"] = "yes"
			if schema.Validate(bad) == nil {
				t.Errorf("%v: a result with \"inline\": \"yes\" validates", args)
			}
		}
	}
	if inline[true] < 5 || inline[false] < 5 {
		t.Errorf("results inline: %d, in the resource: %d; want both", inline[true], inline[false])
	}
	if f := compose.Formats(); len(f) != 5 {
		t.Errorf("formats %v: the calls above cover five", f)
	}
}

// The server keeps the AGENTS.md chain it read between calls
// (compose.Sources) and never answers from a stale one: an edit to a file
// of the chain shows in the next call, and so does a file removed.
func TestContextCompileSeesInstructionEdits(t *testing.T) {
	ctx := context.Background()
	srv, _ := contextTestServers(t, Options{})
	dir := contextTestDir(t, srv)
	platformtest.AgeTree(t, dir)
	text := func() string {
		t.Helper()
		res, err := srv.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: map[string]any{"target": "sub/deep", "format": "text"}})
		if err != nil || res.IsError {
			t.Fatal(err, res)
		}
		return contentText(res)
	}
	for range 2 {
		if got := text(); !strings.Contains(got, "sub rules") {
			t.Fatalf("chain: %s", got)
		}
	}
	writeFile(t, filepath.Join(dir, "sub", "AGENTS.md"), "SUB RULES\n")
	if got := text(); !strings.Contains(got, "SUB RULES") || strings.Contains(got, "sub rules") {
		t.Fatalf("after the edit: %s", got)
	}
	platformtest.AgeTree(t, dir)
	text()
	if err := os.Remove(filepath.Join(dir, "sub", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if got := text(); strings.Contains(got, "SUB RULES") || !strings.Contains(got, "deep rules") {
		t.Fatalf("after the removal: %s", got)
	}
}

// contextTestDir is the working directory of the server cs talks to.
func contextTestDir(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "context_compile", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	var out ContextOutput
	if err := remarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	return out.Dir
}

// The inputs of arguments seen before are remembered, not decoded again,
// for a tool input holding no references only; refused arguments are not
// remembered.
func TestArgsMemo(t *testing.T) {
	type withSlice struct{ A []string }
	type withPointer struct{ P *int }
	if !flat(reflect.TypeFor[ContextInput]()) || flat(reflect.TypeFor[withSlice]()) || flat(reflect.TypeFor[withPointer]()) || flat(reflect.TypeFor[map[string]int]()) {
		t.Fatal("flat misjudges a type")
	}
	schema, err := contextTool().InputSchema.(*jsonschema.Schema).Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	m := newArgsMemo[ContextInput]()
	decode := func(raw string) (ContextInput, bool, error) {
		if in, ok := m.get(json.RawMessage(raw)); ok {
			return in, true, nil
		}
		var in ContextInput
		if err := decodeArguments(json.RawMessage(raw), schema, &in); err != nil {
			return in, false, err
		}
		m.put(json.RawMessage(raw), in)
		return in, false, nil
	}
	for i, c := range []struct {
		raw        string
		remembered bool
		budget     int
		refused    bool
	}{
		{`{"budget":5}`, false, 5, false},
		{`{"budget":5}`, true, 5, false},
		{`{"budget":6}`, false, 6, false},
		{`{"budget":"x"}`, false, 0, true},
		{`{"budget":"x"}`, false, 0, true},
		{`{"budget":5}`, true, 5, false},
	} {
		in, remembered, err := decode(c.raw)
		if remembered != c.remembered || in.Budget != c.budget || (err != nil) != c.refused {
			t.Errorf("call %d %s: remembered %v, budget %d, err %v", i, c.raw, remembered, in.Budget, err)
		}
	}
	for i := range maxArgsMemo + 1 {
		m.put(json.RawMessage(fmt.Sprintf(`{"budget":%d}`, 100+i)), ContextInput{Budget: 100 + i})
	}
	if len(m.ins) > maxArgsMemo {
		t.Errorf("%d inputs remembered", len(m.ins))
	}
	ms := newArgsMemo[withSlice]()
	if ms.put(json.RawMessage(`{}`), withSlice{}); len(ms.ins) != 0 {
		t.Error("a slice-holding input is remembered")
	}
}
