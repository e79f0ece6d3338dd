package compose

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/agentlineage/lineage/tract/wire"
)

var requestTextChars = []string{"a", " ", `"`, `\`, "\n", "{", "}", "[", "]", ",", ":", `"messages":[]`, "<&>", "\u2028", "é", "🎛", "\xff"}

func requestTextString(t *rapid.T, label string) string {
	s := ""
	for _, p := range rapid.SliceOfN(rapid.SampledFrom(requestTextChars), 0, 8).Draw(t, label) {
		s += p
	}
	return s
}

// RequestTexts gives RequestText's bytes for random OpenAI requests and
// message lists drawn from a small pool (so messages repeat, as the
// turns of a conversation do), and encodes a message it saw before only
// once.
func TestRequestTextsMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := make([]wire.OpenAIMessage, rapid.IntRange(1, 6).Draw(t, "pool"))
		for i := range pool {
			m := wire.OpenAIMessage{Role: rapid.SampledFrom([]string{"system", "user", "assistant", "tool"}).Draw(t, "role")}
			if rapid.IntRange(0, 5).Draw(t, "null") > 0 {
				c := requestTextString(t, "content")
				m.Content = &c
			}
			if rapid.IntRange(0, 4).Draw(t, "named") == 0 {
				m.Name = requestTextString(t, "name")
			}
			if rapid.IntRange(0, 4).Draw(t, "tool result") == 0 {
				m.ToolCallID = requestTextString(t, "tool call id")
			}
			if rapid.IntRange(0, 4).Draw(t, "calls") == 0 {
				m.ToolCalls = []wire.OpenAIToolCall{{ID: "c1", Type: "function", Function: wire.OpenAIFunction{Name: "f", Arguments: requestTextString(t, "arguments")}}}
			}
			pool[i] = m
		}
		var c RequestTexts
		for turn := range rapid.IntRange(1, 4).Draw(t, "turns") {
			_ = turn
			var msgs []wire.OpenAIMessage
			for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(pool)-1), 0, 8).Draw(t, "messages") {
				msgs = append(msgs, pool[i])
			}
			req := wire.Rendered{Format: FormatOpenAI, OpenAI: msgs}
			if rapid.Bool().Draw(t, "request") {
				r := &wire.OpenAIBody{Model: requestTextString(t, "model"), MaxCompletionTokens: rapid.IntRange(0, 3).Draw(t, "max"), OpenAIRequest: wire.OpenAIRequest{Messages: msgs}}
				if r.Messages == nil && rapid.Bool().Draw(t, "nil messages") {
					r.Messages = nil
				}
				for range rapid.IntRange(0, 2).Draw(t, "tools") {
					r.Tools = append(r.Tools, wire.OpenAITool{Type: "function", Function: wire.OpenAIToolFunction{Name: requestTextString(t, "tool")}})
				}
				req = wire.Rendered{Format: FormatOpenAIRequest, OpenAIRequest: r}
			}
			res := Result{Request: req}
			want, werr := res.RequestText()
			got, err := c.Text(res)
			if got != want || (err == nil) != (werr == nil) {
				t.Fatalf("turn %d:\ngot  %q (%v)\nwant %q (%v)", turn, got, err, want, werr)
			}
		}
	})
}

// A message seen before is not encoded again: after one more message only
// that one is.
func TestRequestTextsEncodeOnlyNew(t *testing.T) {
	var c RequestTexts
	var msgs []wire.OpenAIMessage
	for i := range 300 {
		s := string(rune('a'+i%26)) + " message " + string(rune('0'+i%10))
		msgs = append(msgs, wire.OpenAIMessage{Role: "user", Content: &s})
		s2 := s + " (unique)" + string(rune(0x4e00+i))
		msgs[len(msgs)-1].Content = &s2
	}
	if _, err := c.Text(Result{Request: openAIRequest(msgs[:299])}); err != nil {
		t.Fatal(err)
	}
	if c.misses != 299 || c.hits != 0 {
		t.Fatalf("first: %d encoded, %d found", c.misses, c.hits)
	}
	if _, err := c.Text(Result{Request: openAIRequest(msgs[1:])}); err != nil {
		t.Fatal(err)
	}
	if c.misses != 300 || c.hits != 298 {
		t.Fatalf("after one more: %d encoded in all, %d found", c.misses, c.hits)
	}
}

func openAIRequest(msgs []wire.OpenAIMessage) wire.Rendered {
	return wire.Rendered{Format: FormatOpenAIRequest, OpenAIRequest: &wire.OpenAIBody{OpenAIRequest: wire.OpenAIRequest{Messages: msgs}}}
}
