package tract

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateBranchName(t *testing.T) {
	tests := []struct {
		name   string
		reason string
	}{
		{"main", ""},
		{"feature/x", ""},
		{"v1.2", ""},
		{"", "empty"},
		{"HEAD", "reserved"},
		{"@", "reserved"},
		{".x", `starts with "."`},
		{"-x", `starts with "-"`},
		{"/x", `starts with "/"`},
		{"x.lock", `ends with ".lock"`},
		{"x.", `ends with "."`},
		{"x/", `ends with "/"`},
		{"a..b", `contains ".."`},
		{"a@{1}", `contains "@{"`},
		{"a//b", `contains "//"`},
		{"a/.b", `has a component starting with "."`},
		{"a b", "contains a space"},
		{"a\tb", "contains a control character"},
		{"a~1", `contains "~"`},
		{"a^", `contains "^"`},
		{"a:b", `contains ":"`},
		{"a?", `contains "?"`},
		{"a*", `contains "*"`},
		{"a[", `contains "["`},
		{`a\b`, `contains "\"`},
		{"a\u2028b", "contains a control character"},
		{"a\u0085b", "contains a control character"},
		{"a\xffb", "not valid UTF-8"},
		{"é/" + strings.Repeat("x", MaxNameBytes-3), ""},
		{strings.Repeat("x", MaxNameBytes+1), "256 bytes, the limit is 255"},
	}
	for _, tt := range tests {
		err := ValidateBranchName(tt.name)
		if tt.reason == "" {
			if err != nil {
				t.Errorf("%q: unexpected %v", tt.name, err)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%q: got %v, want reason %q", tt.name, err, tt.reason)
		}
	}
	if err := ValidateTractName("a/b"); err == nil || !strings.Contains(err.Error(), `contains "/"`) {
		t.Errorf("tract name with slash: %v", err)
	}
	if err := ValidateTractName(strings.Repeat("n", 1<<20)); err == nil || len(err.Error()) > 200 {
		t.Errorf("a 1 MiB tract name: error %d bytes long, want a short one", len(err.Error()))
	}
}

// One commit holds at most MaxContentBytes and a message of at most
// MaxMessageBytes; nothing is stored for a refused one.
func TestCommitSizeLimits(t *testing.T) {
	if _, err := NewBlob(Content{Type: TypeMessage, Role: "user", Text: strings.Repeat("x", MaxContentBytes)}); err == nil || !strings.Contains(err.Error(), "the limit for one commit is 4194304") {
		t.Errorf("oversized content: %v", err)
	}
	if _, err := NewBlob(Content{Type: TypeMessage, Role: "user", Text: strings.Repeat("x", MaxContentBytes-100)}); err != nil {
		t.Errorf("content under the limit: %v", err)
	}
}

func TestGraphAndDot(t *testing.T) {
	e := func(h string, parents ...string) LogEntry {
		var ps []Hash
		for _, p := range parents {
			ps = append(ps, Hash(p))
		}
		return LogEntry{Hash: Hash(h), Parents: ps, Operation: OpAppend, Type: TypeMessage, Summary: h, Refs: []string{}}
	}
	entries := []LogEntry{e("m0000000", "b0000000", "f0000000"), e("f0000000", "a0000000"), e("b0000000", "a0000000"), e("a0000000")}
	entries[0].Operation, entries[0].Message = OpMerge, "merge f"
	want := `* m0000000 merge: merge f
|\
| * f0000000 message: f0000000
* | b0000000 message: b0000000
|/
* a0000000 message: a0000000
`
	if got := Graph(entries); got != want {
		t.Errorf("Graph:\n%s\nwant:\n%s", got, want)
	}
	dot := Dot(entries)
	for _, s := range []string{`"m0000000" -> "f0000000" [style=dashed];`, `"m0000000" -> "b0000000";`, `[label="a0000000\nmessage: a0000000"]`} {
		if !strings.Contains(dot, s) {
			t.Errorf("Dot lacks %s:\n%s", s, dot)
		}
	}
}

func TestTextFormat(t *testing.T) {
	msgs := []Message{
		{Role: "system", Content: "be brief"},
		{Role: "assistant", Name: "bot", ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "a b"},
	}
	want := "system: be brief\n\nassistant (bot):\n  -> c1 ls({})\n\ntool [c1]: a b\n"
	if got := Text(msgs); got != want {
		t.Errorf("Text:\n%q\nwant\n%q", got, want)
	}
}
