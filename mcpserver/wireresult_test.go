package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"pgregory.net/rapid"

	"github.com/agentlineage/lineage/tract"
)

// A tools/call answer is the same bytes on the wire whether the server
// encodes the result itself (wireResults) or the SDK does, for random
// results (texts with HTML characters, line separators, invalid UTF-8;
// raw structured results with spaces; errors; shapes wireResult leaves
// to the SDK), at a protocol version without result types and at one
// with them.
func TestWireResultBytes(t *testing.T) {
	var (
		mu     sync.Mutex
		answer *mcp.CallToolResult
	)
	serve := func(wire bool) *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "wire", Version: "v0"}, nil)
		if wire {
			srv.AddReceivingMiddleware(wireResults(nil))
		}
		srv.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			// A copy: the SDK may set fields of the result it is handed.
			c := *answer
			return &c, nil
		})
		return srv
	}
	for _, version := range []string{"2025-06-18", "2025-11-25", multiRoundTripVersion} {
		t.Run(version, func(t *testing.T) {
			ours, sdks := rawConnectVersion(t, serve(true), version), rawConnectVersion(t, serve(false), version)
			rapid.Check(t, func(t *rapid.T) {
				mu.Lock()
				answer = randomCallResult(t)
				mu.Unlock()
				a := ours.call(t, "tools/call", `{"name":"t","arguments":{}}`)
				b := sdks.call(t, "tools/call", `{"name":"t","arguments":{}}`)
				if !bytes.Equal(a, b) {
					t.Fatalf("server's encoding:\n%s\nSDK's:\n%s", a, b)
				}
			})
		})
	}
}

var wireTextChars = []rune{'a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\x00', '\x1f', '<', '>', '&', '\u2028', '\u2029', 'é', '🎛', '\ufffd'}

func randomWireText(t *rapid.T, label string) string {
	var b strings.Builder
	for _, r := range rapid.SliceOfN(rapid.SampledFrom(wireTextChars), 0, 40).Draw(t, label) {
		b.WriteRune(r)
	}
	if rapid.Bool().Draw(t, label+" invalid") {
		b.WriteString("\xff\xc3(")
	}
	return b.String()
}

func randomCallResult(t *rapid.T) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: rapid.Bool().Draw(t, "isError")}
	for i := range rapid.IntRange(0, 3).Draw(t, "contents") {
		_ = i
		tc := &mcp.TextContent{Text: randomWireText(t, "text")}
		if rapid.IntRange(0, 9).Draw(t, "annotated") == 0 {
			tc.Annotations = &mcp.Annotations{Priority: 0.5}
		}
		res.Content = append(res.Content, tc)
	}
	if rapid.IntRange(0, 9).Draw(t, "nil content") == 0 {
		res.Content = nil
	}
	switch rapid.IntRange(0, 4).Draw(t, "structured") {
	case 1, 2:
		v := map[string]any{"a": randomWireText(t, "value"), "n": rapid.IntRange(-5, 5).Draw(t, "n"), "l": []any{true, nil, 1.5}}
		b, _ := json.MarshalIndent(v, " ", "  ")
		res.StructuredContent = json.RawMessage(b)
	case 3:
		res.StructuredContent = map[string]any{"typed": randomWireText(t, "typed")}
	}
	if rapid.IntRange(0, 9).Draw(t, "meta") == 0 {
		res.Meta = mcp.Meta{"k": "v"}
	}
	return res
}

// rawConnectVersion is rawConnect at a protocol version.
func rawConnectVersion(tb testing.TB, srv *mcp.Server, version string) *rawClient {
	ctx := context.Background()
	c, s := net.Pipe()
	ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: s, Writer: s}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close(); c.Close() })
	rc := &rawClient{conn: c, r: bufio.NewReaderSize(c, 1<<16)}
	rc.call(tb, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}`)
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n")); err != nil {
		tb.Fatal(err)
	}
	return rc
}

// Made of its lines' remembered forms, a text's JSON string is
// encoding/json's, for random texts whose lines recur from one text to
// the next (HTML characters, line separators, invalid UTF-8, lines that
// continue a tokenizer piece).
func TestQuotedFromLines(t *testing.T) {
	lines := []string{"{\"role\":\"user\",\"content\":\"<b>&</b>\"},", "{\"a\":\"\u2028\u2029\"}", "\xff\xfe invalid", "  indented", "/slash", "é🎛 end", "", "\t\r"}
	var l lineCounts
	counter := TokenCounter(&defaultTokens{})
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for i, line := range rapid.SliceOfN(rapid.SampledFrom(lines), 0, 12).Draw(t, "lines") {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
		text := b.String()
		// With a limit (-1: none), the count may be a bound: it decides
		// as the count does; past the limit it is at most the count.
		whole := counter.Count(text)
		limit := rapid.SampledFrom([]int{-1, 0, whole - 1, whole, whole + 1, whole + 40, 1 << 20}).Draw(t, "limit")
		n, quoted, err := l.countQuoted(counter, text, rapid.Bool().Draw(t, "quote"), limit)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case limit < 0 && n != whole:
			t.Fatalf("%d tokens, whole %d: %q", n, whole, text)
		case limit >= 0 && ((n <= limit) != (whole <= limit) || (n <= limit && n < whole) || (n > limit && n > whole)):
			t.Fatalf("limit %d: %d tokens, whole %d: %q", limit, n, whole, text)
		}
		if quoted == nil {
			return
		}
		want, _ := json.Marshal(text)
		if got := `"` + string(bytes.Join(quoted, nil)) + `"`; got != string(want) {
			t.Fatalf("quoted %s\nwant   %s", got, want)
		}
	})
}

// context_compile's text reaches the wire as encoding/json writes the
// string (the form made of its lines), turn after turn.
func TestContextCompileTextOnTheWire(t *testing.T) {
	ctx := context.Background()
	dir := agentsProject(t)
	_, repo := newStore(t)
	srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil }})
	if err != nil {
		t.Fatal(err)
	}
	rc := rawConnect(t, srv)
	for i, text := range []string{"You are <careful> & \"terse\".", "line\u2028separator\npara\u2029graph", "emoji 🎛 and \\ backslash", "</script><!-- -->", "plain"} {
		if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: text}}); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"openai-request", "text"} {
			line := rc.call(t, "tools/call", `{"name":"context_compile","arguments":{"tract":"main","format":"`+format+`"}}`)
			var resp struct {
				Result struct {
					Content []struct {
						Text json.RawMessage `json:"text"`
					} `json:"content"`
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if err := json.Unmarshal(line, &resp); err != nil || resp.Result.IsError || len(resp.Result.Content) != 1 {
				t.Fatalf("turn %d: %v %s", i, err, line)
			}
			var s string
			if err := json.Unmarshal(resp.Result.Content[0].Text, &s); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(s)
			if string(resp.Result.Content[0].Text) != string(want) || (format == "text" && !strings.Contains(s, text)) {
				t.Fatalf("turn %d (%s): text on the wire %s\nencoding/json's %s", i, format, resp.Result.Content[0].Text, want)
			}
		}
	}
	if len(srv.quoted.m) != 0 {
		t.Errorf("%d quoted texts left", len(srv.quoted.m))
	}
}
