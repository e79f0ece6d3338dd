package tract

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"pgregory.net/rapid"
)

// plainOpenAIMessage has OpenAIMessage's fields and tags but not its
// MarshalJSONTo: the reflective encoding the method must equal.
type plainOpenAIMessage OpenAIMessage

// OpenAIMessage.MarshalJSONTo writes exactly what its struct tags say,
// compact and indented, for any strings (invalid UTF-8 and characters
// JSON escapes included).
func TestOpenAIMessageJSON(t *testing.T) {
	text := rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"", "<a & b>", "\u2028", "\x00\x1f\"\\", "\xff\xfe"}))
	rapid.Check(t, func(t *rapid.T) {
		msgs := make([]OpenAIMessage, rapid.IntRange(0, 4).Draw(t, "n"))
		for i := range msgs {
			m := OpenAIMessage{Role: text.Draw(t, "role"), Name: text.Draw(t, "name"), ToolCallID: text.Draw(t, "id")}
			if rapid.Bool().Draw(t, "content") {
				c := text.Draw(t, "text")
				m.Content = &c
			}
			for range rapid.IntRange(0, 2).Draw(t, "calls") {
				m.ToolCalls = append(m.ToolCalls, OpenAIToolCall{ID: text.Draw(t, "cid"), Type: "function",
					Function: OpenAIFunction{Name: text.Draw(t, "fn"), Arguments: text.Draw(t, "args")}})
			}
			msgs[i] = m
		}
		plain := make([]plainOpenAIMessage, len(msgs))
		for i, m := range msgs {
			plain[i] = plainOpenAIMessage(m)
		}
		for _, opts := range [][]json.Options{
			{jsontext.AllowInvalidUTF8(true)},
			{jsontext.WithIndent("  "), json.Deterministic(true), jsontext.AllowInvalidUTF8(true)},
		} {
			got, err1 := json.Marshal(msgs, opts...)
			want, err2 := json.Marshal(plain, opts...)
			if (err1 == nil) != (err2 == nil) || string(got) != string(want) {
				t.Fatalf("MarshalJSONTo:\n%s (%v)\nreflection:\n%s (%v)", got, err1, want, err2)
			}
		}
	})
}
