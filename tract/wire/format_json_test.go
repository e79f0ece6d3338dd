package wire

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
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
// TestOpenAIMessageJSON also holds AppendOpenAIJSON to the encoder.
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
		// The appender, compact and indented, beside the encoder.
		for _, indent := range []string{"", "  ", "\t"} {
			opts := []json.Options{jsontext.AllowInvalidUTF8(true)}
			if indent != "" {
				opts = append(opts, jsontext.WithIndent(indent))
			}
			want, err := json.Marshal(plain, opts...)
			if err != nil {
				t.Fatal(err)
			}
			prefix := []byte("x")
			if got := AppendOpenAIJSON(prefix, msgs, indent); string(got) != "x"+string(want) {
				t.Fatalf("AppendOpenAIJSON(%q):\n%s\nencoder:\n%s", indent, got, want)
			}
			var w strings.Builder
			if err := WriteOpenAIJSON(&w, msgs, indent); err != nil || w.String() != string(want)+"\n" {
				t.Fatalf("WriteOpenAIJSON(%q): %v\n%s\nencoder:\n%s", indent, err, w.String(), want)
			}
		}
	})
}

// WriteOpenAI writes what the encoder writes of OpenAI(messages), for
// any messages (repairs included), and flushes its buffer many times over
// a long context.
func TestWriteOpenAI(t *testing.T) {
	text := rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"", "<a & b>", "call.1/x", "\xff\xfe", "call1"}))
	rapid.Check(t, func(t *rapid.T) {
		msgs := make([]tract.Message, rapid.IntRange(1, 6).Draw(t, "n"))
		for i := range msgs {
			m := tract.Message{Role: rapid.SampledFrom([]string{tract.RoleUser, tract.RoleAssistant, tract.RoleSystem, tract.RoleTool}).Draw(t, "role"),
				Content: text.Draw(t, "text"), Name: rapid.SampledFrom([]string{"", "bob", "b o b"}).Draw(t, "name")}
			switch m.Role {
			case tract.RoleTool:
				m.ToolCallID = text.Draw(t, "result id")
			case tract.RoleAssistant:
				for range rapid.IntRange(0, 2).Draw(t, "calls") {
					m.ToolCalls = append(m.ToolCalls, tract.ToolCall{ID: text.Draw(t, "call id"), Name: text.Draw(t, "fn"), Arguments: text.Draw(t, "args")})
				}
			}
			msgs[i] = m
		}
		checkWriteOpenAI(t, msgs)
	})
	long := make([]tract.Message, 3000)
	for i := range long {
		long[i] = tract.Message{Role: tract.RoleUser, Content: strings.Repeat(string(rune('a'+i%26)), i%200) + "\"<é>\n"}
	}
	checkWriteOpenAI(t, long)
	var w strings.Builder
	if err := WriteOpenAI(&w, tract.Result{Tract: "main"}, "  "); !errors.Is(err, ErrEmptyContext) || w.Len() > 0 {
		t.Fatalf("empty context: %v, wrote %q", err, w.String())
	}
}

func checkWriteOpenAI(t interface{ Fatalf(string, ...any) }, msgs []tract.Message) {
	want, err := json.Marshal(OpenAI(msgs), jsontext.WithIndent("  "), json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		t.Fatalf("%v", err)
	}
	var w strings.Builder
	if err := WriteOpenAI(&w, tract.Result{Messages: msgs}, "  "); err != nil || w.String() != string(want)+"\n" {
		t.Fatalf("WriteOpenAI: %v\n%s\nencoder:\n%s", err, w.String(), want)
	}
}

// appendQuote writes what jsontext.AppendQuote writes, whatever the bytes.
func FuzzAppendQuote(f *testing.F) {
	for _, s := range []string{"", "plain ascii text of some length", "tab\there", `quote " and \ backslash`,
		"émoji 🎉 and ünïcode", "bad \xff utf8 \xc3", "\x7f\x00\x1f", "eight by", "<html> & 'js'\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := jsontext.AppendQuote([]byte("x"), s)
		if got := appendQuote([]byte("x"), s); string(got) != string(want) {
			t.Fatalf("appendQuote(%q) = %s, jsontext %s", s, got, want)
		}
	})
}
