package sessions

import "testing"

// Every kind of text lineage's hooks inject is recognised as lineage's own
// (kept, never compiled: lineage sends it fresh), the memory block
// included; a user's words about lineage are not.
func TestLineageTextIsRecognised(t *testing.T) {
	for text, want := range map[string]bool{
		"<agents_context>\n…":                         true,
		"AGENTS.md in this session:\n- /r/AGENTS.md":  true,
		"<lineage_memory>\nWhat lineage remembers…\n": true,
		"please run lineage memory add":               false,
		"the <lineage> tag in our docs":               false,
	} {
		if got := isLineageText(text); got != want {
			t.Errorf("isLineageText(%q) = %v, want %v", text, got, want)
		}
	}
}
