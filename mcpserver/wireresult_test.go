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
			srv.AddReceivingMiddleware(wireResults)
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
