package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
)

func init() {
	toolHintsWanted["context_compile"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
}

// context_compile answers what lineage context prints: its text content is
// the request, its structured result the provenance of the chain of the
// target's directory, the agent's profile and the tract's history (as
// runs), and the resource it names is the whole lineage context --json. A
// budget the pinned part exceeds is refused.
func TestContextCompile(t *testing.T) {
	dir := agentsProject(t)
	path, repo := newStore(t)
	ctx := context.Background()
	var heads []tract.Hash
	for _, c := range []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are terse."}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "Fix the bug in lib."}},
		{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: "Fixed: the \"nil\" map.\n/ and done"}},
	} {
		cm, err := repo.Commit(ctx, "main", c)
		if err != nil {
			t.Fatal(err)
		}
		heads = append(heads, cm.Hash)
	}
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), store: path}, nil)

	args := map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "format": "anthropic-request", "model": "m", "maxTokens": 64}
	text, out := callContext(t, cs, args)
	if !out.Inline || out.Messages != 5 || out.Head != heads[2] {
		t.Fatalf("outline = %+v", out)
	}
	if len(out.Blocks) != 2 || out.Blocks[0].Source != compose.SourceInstructions || out.Blocks[1].Source != compose.SourceProfile {
		t.Fatalf("blocks = %+v", out.Blocks)
	}
	if f := out.Blocks[0].Files; len(f) != 3 || f[0].Path != filepath.Join(dir, "AGENTS.md") || f[2].Path != filepath.Join(dir, "sub", "deep", "AGENTS.md") {
		t.Errorf("instruction files = %+v", f)
	}
	if f := out.Blocks[1].Fields; len(f) != 1 || f[0].Field != "guardrails" || len(f[0].Values) != 1 || f[0].Values[0].Pointer != "/guardrails/0" {
		t.Errorf("profile fields = %+v", f)
	}
	// The pinned instruction is a run of the system part; the two messages
	// one run of the messages part.
	want := []compose.Run{
		{Index: 2, Count: 1, Part: compose.PartSystem, Tract: "main", SpawnPath: []string{"main"}, Priority: tract.Pinned, First: heads[0], Last: heads[0]},
		{Index: 3, Count: 2, Part: compose.PartMessages, Tract: "main", SpawnPath: []string{"main"}, Priority: tract.Normal, First: heads[1], Last: heads[2]},
	}
	sum := out.Overhead + out.Blocks[0].Tokens + out.Blocks[1].Tokens
	for i := range out.Runs {
		sum += out.Runs[i].Tokens
		out.Runs[i].Tokens = 0
	}
	if fmt.Sprint(out.Runs) != fmt.Sprint(want) {
		t.Errorf("runs = %+v\nwant %+v", out.Runs, want)
	}
	if sum != out.Tokens {
		t.Errorf("blocks, runs and overhead add up to %d, tokens %d", sum, out.Tokens)
	}

	// The text is the request; the resource is lineage context --json,
	// whose request it is.
	var req map[string]any
	if err := json.Unmarshal([]byte(text), &req); err != nil {
		t.Fatalf("text content is not the request: %v\n%s", err, text)
	}
	if req["model"] != "m" || !strings.HasPrefix(req["system"].(string), `<agents_context scope="initial">`) || !strings.Contains(text, `"max_tokens":64,`) || strings.Count(text, "\n{") != 2 {
		t.Errorf("request = %s", text)
	}
	if !strings.HasPrefix(out.Resource, "lineage://context?") || !strings.Contains(out.Resource, "at="+string(heads[2])) {
		t.Fatalf("resource = %s", out.Resource)
	}
	if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "later"}}); err != nil {
		t.Fatal(err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.Resource})
	if err != nil {
		t.Fatal(err)
	}
	var full compose.Result
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &full); err != nil {
		t.Fatal(err)
	}
	if full.Head != heads[2] || len(full.Blocks) != 5 || full.Blocks[4].Commit != heads[2] || full.Tokens != out.Tokens {
		t.Errorf("resource (read after one more commit) = %s", rr.Contents[0].Text)
	}
	// The request as the resource holds it (a compose.Result's Request
	// marshals as its format's value; its format is the record's).
	var raw struct {
		Request json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &raw); err != nil {
		t.Fatal(err)
	}
	if got := mustCompact(t, string(raw.Request)); string(got) != string(mustCompact(t, text)) {
		t.Errorf("resource request %s\ntext content %s", got, text)
	}

	msg := callError(t, cs, "context_compile", map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 20})
	if !strings.Contains(msg, "budget of 20 tokens is too small") || !strings.Contains(msg, "largest: ") {
		t.Errorf("over budget: %s", msg)
	}
	if msg := callError(t, cs, "context_compile", map[string]any{"target": "/"}); !strings.Contains(msg, "target") {
		t.Errorf("outside the roots: %s", msg)
	}
	if msg := callError(t, cs, "context_compile", map[string]any{"format": "xml"}); !strings.Contains(msg, "format") {
		t.Errorf("bad format: %s", msg)
	}
	for uri, want := range map[string]int64{
		"lineage://context?target=%2F": jsonrpc.CodeInvalidParams,
		"lineage://context?budget=x":   jsonrpc.CodeInvalidParams,
		"lineage://context?format=xml": jsonrpc.CodeInvalidParams,
		"lineage://context?tract=nope": mcp.CodeResourceNotFound,
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != want || je.Message == "" {
			t.Errorf("read %s: %v, want code %d", uri, err, want)
		}
	}
}

func mustCompact(t *testing.T, text string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return b
}

// contextWorld is a 10k-message tract (an instruction, then alternating
// user and assistant messages) and a server on it, connected in process.
func contextWorld(tb testing.TB, opts Options) (*tract.Repo, *mcp.ClientSession) {
	repo, srv := contextServer(tb, opts)
	return repo, inProcess(tb, srv)
}

// contextServer is contextWorld's server, not connected.
func contextServer(tb testing.TB, opts Options) (*tract.Repo, *Server) {
	ctx := context.Background()
	dir := project(tb)
	writeFile(tb, filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"tau","role":"librarian","guardrails":["no force push"]}`+"\n")
	ageTree(tb, dir)
	_, repo := newStore(tb)
	reqs := []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are a careful engineer."}}}
	for i := 0; i < 9_999; i++ {
		reqs = append(reqs, contextBenchMessage(i))
	}
	if _, err := repo.Import(ctx, "main", reqs); err != nil {
		tb.Fatal(err)
	}
	opts.Cwd, opts.StateDir = dir, tb.TempDir()
	opts.OpenTract = func(context.Context) (*tract.Repo, error) { return repo, nil }
	srv, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return repo, srv
}

// ageTree dates every file and directory under dir a minute back: a
// project whose AGENTS.md and agent files were not edited in the last
// fsx.RacyWindow (2 s), as in a conversation. Files changed more recently
// than that are read again on every compile (their modification time
// cannot tell a change apart yet), which is right but is not the steady
// state the benchmarks time.
func ageTree(tb testing.TB, dir string) {
	tb.Helper()
	old := time.Now().Add(-time.Minute)
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// inProcess connects a client to srv through the SDK's in-memory
// transports.
func inProcess(tb testing.TB, srv *Server) *mcp.ClientSession {
	ctx := context.Background()
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, sst, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// At 10k messages under a 4,000-token budget the whole result — the
// request and the outline — stays under the 10,000-token limit (counted
// here with the real tokenizer, all of it), the messages are one run and
// the dropped ones another; with a lower limit the request moves to the
// resource and the text says so.
func TestContextCompileSize(t *testing.T) {
	ctx := context.Background()
	c, err := tokens.Get("")
	if err != nil {
		t.Fatal(err)
	}
	_, cs := contextWorld(t, Options{})
	args := map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 4000, "format": "openai-request"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: args})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	n := c.Count(contentText(res)) + c.Count(string(structured))
	if n > DefaultMaxResultTokens {
		t.Errorf("result of %d tokens", n)
	}
	var out ContextOutput
	if err := remarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Inline || len(out.Runs) != 2 || out.Runs[1].Count != out.Messages-3 || len(out.DroppedRuns) != 1 || out.EarlierDropped == nil ||
		out.DroppedRuns[0].Count+out.EarlierDropped.Count != out.DroppedMessageCount || out.DroppedMessageCount < 9_000 ||
		out.DroppedRuns[0].Tokens+out.EarlierDropped.Tokens != out.DroppedMessageTokens || out.DroppedRuns[0].First == out.EarlierDropped.Last {
		t.Errorf("outline = %s", structured)
	}
	t.Logf("result: %d tokens (%d bytes of text, %d of structured content)", n, len(contentText(res)), len(structured))

	_, cs = contextWorld(t, Options{MaxResultTokens: 2000})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: args})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	if err := remarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	if text := contentText(res); out.Inline || !strings.Contains(text, "too long for one result: read it from the resource "+out.Resource) {
		t.Fatalf("inline %v, text %s", out.Inline, text)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: out.Resource})
	if err != nil {
		t.Fatal(err)
	}
	var full compose.Result
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &full); err != nil || full.Tokens != out.Tokens || full.DroppedMessageCount != len(full.DroppedMessages) {
		t.Fatalf("resource: %v (tokens %d, want %d)", err, full.Tokens, out.Tokens)
	}
}

// Counted chunk by chunk, a request has the tokenizer's count of the whole
// text, in both encodings, whatever its messages hold.
func TestLineCountsAddUp(t *testing.T) {
	texts := []string{
		"",
		"one line",
		"{\n\"a\": 1,\n\"b\": \"x\\ny\"\n}",
		"user: hello\n\nassistant: two\n  indented\n/slash\n\ttab\n\n\n}\n",
		"a/\n/b\n\"q\"\n'x\n's\n12\n345\n ünïcode 🎛️\n🎛️ first\n\u00a0nbsp\n\r\nwindows\r\nend\n",
	}
	for i := 0; i < 300; i++ {
		texts = append(texts, fmt.Sprintf("{\n\"content\": \"message %d: a line of conversation about the \\\"service\\\"\\nand its tests\",\n\"role\": \"user\"\n},", i))
	}
	whole := strings.Join(texts, "\n")
	texts = append(texts, whole)
	for _, enc := range tokens.Encodings() {
		c, err := tokens.Get(enc)
		if err != nil {
			t.Fatal(err)
		}
		var l lineCounts
		for _, text := range texts {
			for range 2 { // counted, then remembered
				if got, want := l.count(c, text), c.Count(text); got != want {
					t.Fatalf("%s: %d tokens by chunks, %d whole: %q", enc, got, want, text)
				}
			}
		}
	}
}

// Any text's chunks add up to its count (the claim the size check rests
// on), in both encodings.
func FuzzLineCounts(f *testing.F) {
	f.Add("{\n\"a\": 1,\n\"b\": \"x\"\n}\n/x\n  y\n\tz\n'q\n12\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, enc := range tokens.Encodings() {
			c, err := tokens.Get(enc)
			if err != nil {
				t.Fatal(err)
			}
			var l lineCounts
			if got, want := l.count(c, text), c.Count(text); got != want {
				t.Fatalf("%s: %d by chunks %q, %d whole", enc, got, splitChunks(text), want)
			}
		}
	})
}

// A server process answers the same context_compile arguments again and
// again (its argument memo, message encodings, line counts and warm views
// in use) and never with stale content: a commit and an annotation made
// by another process (this test's own store) and an AGENTS.md edit each
// show in the next answer; with nothing changed, the answer is the same.
func TestContextCompileNeverStale(t *testing.T) {
	dir := agentsProject(t)
	path, repo := newStore(t)
	ctx := context.Background()
	first, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "the first question"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), store: path}, nil)
	args := map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": 4000, "format": "openai-request"}
	answer := func() (string, ContextOutput) {
		t.Helper()
		return callContext(t, cs, args)
	}
	text, out := answer()
	if again, _ := answer(); again != text || !strings.Contains(text, "the first question") {
		t.Fatalf("asked twice, nothing changed:\n%s\n%s", text, again)
	}
	second, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: "the first answer"}})
	if err != nil {
		t.Fatal(err)
	}
	text, out = answer()
	if !strings.Contains(text, `"the first answer"`) || out.Head != second.Hash || out.Messages != 4 {
		t.Fatalf("after another process's commit: head %s, %d messages\n%s", out.Head, out.Messages, text)
	}
	if _, err := repo.Annotate(ctx, "main", string(first.Hash), tract.Skip, "off topic"); err != nil {
		t.Fatal(err)
	}
	text, out = answer()
	if strings.Contains(text, "the first question") || out.Messages != 3 {
		t.Fatalf("after another process's annotation: %d messages\n%s", out.Messages, text)
	}
	writeFile(t, filepath.Join(dir, "sub", "AGENTS.md"), "sub rules, revised at length\n")
	text, _ = answer()
	if !strings.Contains(text, "sub rules, revised at length") {
		t.Fatalf("after an AGENTS.md edit:\n%s", text)
	}
}

// A window of messages moving on by one (and now and then by several, or
// back) is counted right, and only the chunks not counted before reach
// the tokenizer.
func TestLineCountsSlidingWindow(t *testing.T) {
	c, err := tokens.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	counting := tokens.Func{Name: "o200k_base", Fn: func(s string) int { calls++; return c.Count(s) }}
	line := func(i int) string {
		return fmt.Sprintf("{\"role\":\"user\",\"content\":\"message %d about the \\\"service\\\"\"}", i)
	}
	text := func(from, to int) string {
		var b strings.Builder
		b.WriteString("{\"messages\":[\n{\"role\":\"system\",\"content\":\"rules\"}")
		for i := from; i < to; i++ {
			b.WriteString(",\n" + line(i))
		}
		b.WriteString("]}")
		return b.String()
	}
	// Counted exactly (limit -1), and under a limit the text is far from
	// (only whether it fits matters: the last chunk, which the next text
	// changes, is not tokenized).
	for _, limit := range []int{-1, 1 << 20} {
		var l lineCounts
		from, to, seen := 0, 300, 0
		for step := range 40 {
			before := calls
			s := text(from, to)
			got, _, err := l.countQuoted(counting, s, false, limit)
			if whole := c.Count(s); err != nil || (limit < 0 && got != whole) || (limit >= 0 && (got < whole || got > limit)) {
				t.Fatalf("limit %d, step %d (%d..%d): %d tokens by chunks, %d whole (%v)", limit, step, from, to, got, whole, err)
			}
			// The first text: every chunk. Then: the new messages and the
			// last one before them (its "]}" became ","), under the limit
			// the newest excepted; nothing for a window seen before.
			want := 0
			if to > seen {
				want = to - seen + 1
				if limit >= 0 {
					want--
				}
			}
			if n := calls - before; step > 0 && n != want {
				t.Fatalf("limit %d, step %d: %d chunks tokenized, want %d", limit, step, n, want)
			}
			seen = max(seen, to)
			switch {
			case step%10 == 9:
				from, to = from-3, to-3 // back to a window seen before
			case step%5 == 4:
				from, to = from+5, to+5
			default:
				from, to = from+1, to+1
			}
		}
	}
}

// A text far past the limit costs the tokenizer only the chunks up to the
// limit, is not quoted, and is counted in full by a later call without a
// limit.
func TestLineCountsStopPastTheLimit(t *testing.T) {
	c, err := tokens.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	counting := tokens.Func{Name: "o200k_base", Fn: func(s string) int { calls++; return c.Count(s) }}
	var b strings.Builder
	b.WriteString("{\"messages\":[\n{\"role\":\"system\",\"content\":\"rules\"}")
	for i := range 2000 {
		fmt.Fprintf(&b, ",\n{\"role\":\"user\",\"content\":\"message %d about the service\"}", i)
	}
	b.WriteString("]}")
	text := b.String()
	whole := c.Count(text)
	var l lineCounts
	const limit = 200
	n, quoted, err := l.countQuoted(counting, text, true, limit)
	if err != nil || n <= limit || n > whole || quoted != nil {
		t.Fatalf("count %d (limit %d, whole %d), quoted %v, err %v", n, limit, whole, quoted != nil, err)
	}
	// A line is over ten tokens: past 200 after at most 20 lines.
	if calls > 25 {
		t.Errorf("%d chunks tokenized for a text past the limit, want at most 25", calls)
	}
	calls = 0
	if got := l.count(counting, text); got != whole {
		t.Errorf("count without a limit afterwards %d, want %d", got, whole)
	}
	if calls < 2000-25 {
		t.Errorf("the chunks left uncounted were not counted later: %d calls", calls)
	}
}

// callContext calls context_compile with args; the answer's text and its
// structured result.
func callContext(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, ContextOutput) {
	t.Helper()
	var out ContextOutput
	text := call(t, cs, "context_compile", args, &out)
	return text, out
}

// Calls answered at once, each building its compile in a scratch of the
// server's (one per call in flight, reused by the next): every answer is
// the one the same arguments get alone, byte for byte.
func TestContextCompileConcurrent(t *testing.T) {
	ctx := context.Background()
	_, cs := contextWorld(t, Options{})
	var argsList []map[string]any
	for _, budget := range []int{1500, 4000, 6000} {
		for _, format := range []string{"openai-request", "openai", "anthropic-request"} {
			argsList = append(argsList, map[string]any{"target": "sub/deep", "slug": "tau", "tract": "main", "budget": budget, "format": format})
		}
	}
	answer := func(args map[string]any) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: args})
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("%s", contentText(res))
		}
		b, err := json.Marshal(res.StructuredContent)
		return contentText(res) + "\n" + string(b), err
	}
	alone := make([]string, len(argsList))
	for i, args := range argsList {
		var err error
		if alone[i], err = answer(args); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for round := range 5 {
				i := (g + round) % len(argsList)
				got, err := answer(argsList[i])
				if err != nil {
					t.Error(err)
					return
				}
				if got != alone[i] {
					t.Errorf("%v, answered among others:\n%.1000s\nalone:\n%.1000s", argsList[i], got, alone[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// Texts counted at once, each sliding its own window (the lists of the
// text before last are reused): every count is the whole text's and every
// JSON string form is encoding/json's.
func TestLineCountsConcurrent(t *testing.T) {
	c, err := tokens.Get("")
	if err != nil {
		t.Fatal(err)
	}
	line := func(g, i int) string {
		return fmt.Sprintf(`{"role":"user","content":"worker %d, message %d: <a line> & its \"tests\""}`, g, i)
	}
	var l lineCounts
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for from := range 25 {
				var b strings.Builder
				b.WriteString(`{"model":"m","messages":[`)
				for i := from; i < from+30; i++ {
					if i > from {
						b.WriteByte(',')
					}
					b.WriteString("\n" + line(g%2, i))
				}
				b.WriteString("]}")
				text := b.String()
				n, quoted, err := l.countQuoted(c, text, true, -1)
				if err != nil {
					t.Error(err)
					return
				}
				want, _ := json.Marshal(text)
				if got := "\"" + string(bytes.Join(quoted, nil)) + "\""; n != c.Count(text) || got != string(want) {
					t.Errorf("worker %d, window %d: %d tokens (whole: %d), JSON form\n%s\nwant\n%s", g, from, n, c.Count(text), got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
