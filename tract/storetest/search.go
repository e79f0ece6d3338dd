package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/go-json-experiment/json"
)

func init() {
	suites = append(suites, []testCase{
		{"FindWords", testFindWords},
		{"FindFilters", testFindFilters},
		{"FindAfterGC", testFindAfterGC},
		{"CommitMeta", testCommitMeta},
		{"Tags", testTags},
		{"ToolsCompile", testToolsCompile},
	})
}

func (e *env) find(tractName string, o tract.FindOptions) []tract.Hash {
	e.t.Helper()
	found, err := e.repo.Find(e.ctx, tractName, o)
	e.must(err)
	out := []tract.Hash{}
	for _, f := range found {
		out = append(out, f.Commit.Hash)
	}
	return out
}

func (e *env) wantFind(tractName string, o tract.FindOptions, want ...tract.Hash) {
	e.t.Helper()
	if want == nil {
		want = []tract.Hash{}
	}
	if got := e.find(tractName, o); !slices.Equal(got, want) {
		e.t.Fatalf("find %+v = %v, want %v", o, got, want)
	}
}

// testFindWords: a word query finds the commits holding every word, case
// and punctuation aside, non-ASCII letters included, oldest first; both
// stores agree because both index tract.IndexWords.
func testFindWords(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "Hello, World! The deploy-script failed.")
	b := e.user("main", "hello again: the world is round")
	c := e.add("main", tract.TypeMessage, "assistant", "Grüße aus Köln; 42 Äpfel")
	d := e.add("main", tract.TypeInstruction, "", "Never deploy on Fridays")
	e.wantFind("main", tract.FindOptions{Text: "hello"}, a, b)
	e.wantFind("main", tract.FindOptions{Text: "WORLD hello"}, a, b)
	e.wantFind("main", tract.FindOptions{Text: "script"}, a)
	e.wantFind("main", tract.FindOptions{Text: "deploy"}, a, d)
	e.wantFind("main", tract.FindOptions{Text: "grüße köln"}, c)
	e.wantFind("main", tract.FindOptions{Text: "ÄPFEL 42"}, c)
	e.wantFind("main", tract.FindOptions{Text: "hell"}) // words, not prefixes
	e.wantFind("main", tract.FindOptions{Text: "hello fridays"})
	e.wantFind("main", tract.FindOptions{Text: `it's "quoted" \ text`})
	e.wantFind("main", tract.FindOptions{}, a, b, c, d)
	e.wantFind("main", tract.FindOptions{Text: "hello", Limit: 1}, a)
	e.wantFind("main", tract.FindOptions{Limit: 3}, a, b, c)
	if _, err := e.repo.Find(e.ctx, "main", tract.FindOptions{Text: "!!"}); err == nil {
		t.Fatal("a query without a word was accepted")
	}
	// An edit's new text is found on the edit commit.
	ed, err := e.repo.Edit(e.ctx, "main", string(b), "goodbye world", "")
	e.must(err)
	e.wantFind("main", tract.FindOptions{Text: "goodbye"}, ed.Hash)
}

// testFindFilters: type, role, tag, metadata and the tract scope.
func testFindFilters(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	u := e.user("main", "plan the release")
	as := e.add("main", tract.TypeMessage, "assistant", "release plan ready")
	in := e.add("main", tract.TypeInstruction, "", "release carefully")
	m, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "release notes"},
		Meta: []byte(`{"ticket":"REL-7","attempt":2,"urgent":true}`)})
	e.must(err)
	_, err = e.repo.NewTract(e.ctx, "other")
	e.must(err)
	o := e.user("other", "release elsewhere")

	e.wantFind("main", tract.FindOptions{Text: "release", Type: tract.TypeInstruction}, in)
	e.wantFind("main", tract.FindOptions{Text: "release", Role: "assistant"}, as)
	e.wantFind("main", tract.FindOptions{Role: "user"}, u, m.Hash)
	e.wantFind("main", tract.FindOptions{Meta: map[string]string{"ticket": "REL-7"}}, m.Hash)
	e.wantFind("main", tract.FindOptions{Meta: map[string]string{"attempt": "2", "urgent": "true"}}, m.Hash)
	e.wantFind("main", tract.FindOptions{Meta: map[string]string{"ticket": "REL-8"}})
	e.wantFind("main", tract.FindOptions{Meta: map[string]string{"missing": "x"}})
	e.wantFind("main", tract.FindOptions{Text: "release"}, u, as, in, m.Hash)
	e.wantFind("main", tract.FindOptions{Text: "release", AllTracts: true}, u, as, in, m.Hash, o)
	e.wantFind("other", tract.FindOptions{Text: "release"}, o)

	_, err = e.repo.CreateTag(e.ctx, "main", "v1", string(as))
	e.must(err)
	e.wantFind("main", tract.FindOptions{Tag: "v1"}, as)
	e.wantFind("main", tract.FindOptions{Tag: "v1", Text: "plan"}, as)
	e.wantFind("main", tract.FindOptions{Tag: "v1", Role: "user"})
	if _, err := e.repo.Find(e.ctx, "main", tract.FindOptions{Tag: "nosuch"}); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("unknown tag: %v", err)
	}
	found, err := e.repo.Find(e.ctx, "main", tract.FindOptions{Text: "notes"})
	e.must(err)
	if len(found) != 1 || string(found[0].Commit.Meta) != `{"attempt":2,"ticket":"REL-7","urgent":true}` || found[0].Content.Text != "release notes" || found[0].Tract != "main" {
		t.Fatalf("found %+v", found)
	}
}

// testFindAfterGC: collected blobs leave the index with them.
func testFindAfterGC(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	keep := e.user("main", "keep this alpha")
	e.user("main", "drop this alpha")
	_, err := e.repo.Reset(e.ctx, "main", string(keep))
	e.must(err)
	e.clock.Advance(48 * 3600e9)
	_, err = e.repo.GC(e.ctx, tract.GCOptions{Retention: 0})
	e.must(err)
	e.wantFind("main", tract.FindOptions{Text: "alpha"}, keep)
	again := e.user("main", "drop this alpha")
	e.wantFind("main", tract.FindOptions{Text: "drop"}, again)
}

// testCommitMeta: metadata is stored canonical, hashed, returned by Commit,
// History and Log, and never rendered; bad metadata is refused.
func testCommitMeta(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	c, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "hi"},
		Meta: []byte(` {"b": [1, 2.50], "a": "x"} `)})
	e.must(err)
	const want = `{"a":"x","b":[1,2.5]}`
	if string(c.Meta) != want {
		t.Fatalf("meta %s, want %s", c.Meta, want)
	}
	plain := e.user("main", "hi")
	got, err := e.store.Commit(e.ctx, c.Hash)
	e.must(err)
	if string(got.Meta) != want || got.ComputeHash() != c.Hash {
		t.Fatalf("stored meta %q, hash ok %v", got.Meta, got.ComputeHash() == c.Hash)
	}
	bare := c
	bare.Meta = nil
	if bare.ComputeHash() == c.Hash {
		t.Fatal("meta is not part of the hash")
	}
	log, err := e.repo.Log(e.ctx, "main", tract.LogOptions{})
	e.must(err)
	if len(log) != 2 || string(log[1].Meta) != want || log[0].Meta != nil || log[0].Hash != plain {
		t.Fatalf("log %+v", log)
	}
	res := e.compile("main", tract.CompileOptions{})
	for _, m := range res.Messages {
		if strings.Contains(m.Content, `"a"`) {
			t.Fatalf("meta rendered: %+v", m)
		}
	}
	rep, err := e.repo.Verify(e.ctx)
	e.must(err)
	if len(rep.Damage) != 0 {
		t.Fatalf("verify: %+v", rep.Damage)
	}
	for _, bad := range []string{`[1]`, `{"a":`, `{"a":1,"a":2}`, `"x"`} {
		if _, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "x"}, Meta: []byte(bad)}); err == nil {
			t.Fatalf("meta %s accepted", bad)
		}
	}
}

// testTags: tags are fixed refs that resolve, list apart from branches,
// refuse duplicates and keep their commits through GC.
func testTags(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	one := e.user("main", "one")
	two := e.user("main", "two")
	tag, err := e.repo.CreateTag(e.ctx, "main", "v1", "HEAD~1")
	e.must(err)
	if tag.Commit != one {
		t.Fatalf("tag at %s, want %s", tag.Commit, one)
	}
	if _, err := e.repo.CreateTag(e.ctx, "main", "v1", ""); !errors.Is(err, tract.ErrExists) {
		t.Fatalf("second v1: %v", err)
	}
	if _, err := e.repo.CreateTag(e.ctx, "main", "bad name", ""); err == nil {
		t.Fatal("tag name with a space accepted")
	}
	_, err = e.repo.CreateTag(e.ctx, "main", "latest", "")
	e.must(err)
	tags, err := e.repo.Tags(e.ctx, "main")
	e.must(err)
	if len(tags) != 2 || tags[0] != (tract.Tag{Name: "latest", Commit: two}) || tags[1] != (tract.Tag{Name: "v1", Commit: one}) {
		t.Fatalf("tags %+v", tags)
	}
	branches, err := e.repo.Branches(e.ctx, "main")
	e.must(err)
	if len(branches) != 1 || branches[0].Name != "main" {
		t.Fatalf("branches %+v", branches)
	}
	tr, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	for ref, want := range map[string]tract.Hash{"v1": one, "v1~0": one, "latest~1": one, "main:latest": two} {
		if h, err := e.repo.Resolve(e.ctx, tr, ref); err != nil || h != want {
			t.Fatalf("resolve %s = %s, %v; want %s", ref, h, err, want)
		}
	}
	if err := e.repo.Switch(e.ctx, "main", "tag:v1"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("switch to a tag: %v", err)
	}
	// A branch of the same name wins over the tag.
	_, err = e.repo.CreateBranch(e.ctx, "main", "v1", "latest")
	e.must(err)
	if h, _ := e.repo.Resolve(e.ctx, tr, "v1"); h != two {
		t.Fatalf("v1 resolves to %s, want the branch at %s", h, two)
	}
	e.must(e.repo.DeleteBranch(e.ctx, "main", "v1", true))
	// The tag keeps "latest" alive after main moves back.
	_, err = e.repo.Reset(e.ctx, "main", string(one))
	e.must(err)
	e.clock.Advance(48 * 3600e9)
	_, err = e.repo.GC(e.ctx, tract.GCOptions{Retention: 0})
	e.must(err)
	if _, err := e.store.Commit(e.ctx, two); err != nil {
		t.Fatalf("tagged commit collected: %v", err)
	}
	del, err := e.repo.DeleteTag(e.ctx, "main", "latest")
	e.must(err)
	if del.Commit != two {
		t.Fatalf("deleted %+v", del)
	}
	if _, err := e.repo.DeleteTag(e.ctx, "main", "latest"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := e.repo.Resolve(e.ctx, tr, "latest"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("deleted tag resolves: %v", err)
	}
}

// testToolsCompile: the latest tools commit in the linearization is
// compiled beside the messages; skipping it brings back the one before; the
// request formats carry the tools in each API's shape.
func testToolsCompile(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	commitTools := func(js string) tract.Hash {
		t.Helper()
		tools, err := tract.ParseTools([]byte(js))
		e.must(err)
		c, err := e.repo.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeTools, Tools: tools}})
		e.must(err)
		return c.Hash
	}
	e.add("main", tract.TypeInstruction, "", "be brief")
	commitTools(`[{"name":"search","description":"web search","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}]`)
	e.user("main", "hi")
	second := commitTools(`[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}},{"name":"now","input_schema":{"type":"object","properties":{}}}]`)
	res := e.compile("main", tract.CompileOptions{})
	if len(res.Tools) != 2 || res.Tools[0].Name != "lookup" || res.Tools[1].Name != "now" || len(res.Messages) != 2 {
		t.Fatalf("tools %+v messages %d", res.Tools, len(res.Messages))
	}
	if cold, err := e.repo.CompileCold(e.ctx, "main", tract.CompileOptions{}); err != nil || len(cold.Tools) != 2 || cold.Tokens != res.Tokens {
		t.Fatalf("cold %+v %v", cold.Tools, err)
	}
	_, err := e.repo.Annotate(e.ctx, "main", string(second), tract.Skip, "")
	e.must(err)
	res = e.compile("main", tract.CompileOptions{})
	if len(res.Tools) != 1 || res.Tools[0].Name != "search" || string(res.Tools[0].Parameters) != `{"properties":{"q":{"type":"string"}},"type":"object"}` {
		t.Fatalf("after skip: %+v", res.Tools)
	}
	r, err := wire.Render(res, wire.FormatOpenAIRequest)
	e.must(err)
	if len(r.OpenAIRequest.Tools) != 1 || r.OpenAIRequest.Tools[0].Type != "function" || r.OpenAIRequest.Tools[0].Function.Name != "search" || len(r.OpenAIRequest.Messages) != 2 {
		t.Fatalf("openai-request %+v", r.OpenAIRequest)
	}
	if err := ValidateOpenAIRequest(mustJSON(t, r.OpenAIRequest)); err != nil {
		t.Fatal(err)
	}
	r, err = wire.Render(res, wire.FormatAnthropic)
	e.must(err)
	if len(r.Anthropic.Tools) != 1 || r.Anthropic.Tools[0].Name != "search" || string(r.Anthropic.Tools[0].InputSchema) != string(res.Tools[0].Parameters) {
		t.Fatalf("anthropic %+v", r.Anthropic.Tools)
	}
	if err := ValidateAnthropic(mustJSON(t, r.Anthropic)); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
