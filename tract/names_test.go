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
