package webui

import (
	"fmt"
	"strings"
	"testing"
)

// shownSlow is shown without its fast path for plain text: every rune
// looked at.
func shownSlow(s string, max int) string {
	at := cutAt(s, max)
	out := visibleRunes(s[:at])
	if at < len(s) {
		out += fmt.Sprintf("\n… %d more bytes not shown", len(s)-at)
	}
	return out
}

// TestShownPlainText: shown's fast path (plain ASCII kept as it is) gives
// what looking at every rune gives, cut or not, for plain text and for
// text with control characters, DEL, invalid UTF-8 and other scripts.
func TestShownPlainText(t *testing.T) {
	for _, s := range []string{"", "plain text", "two\nlines\tand a tab", "esc \x1b[31m", "nul \x00", "del \x7f", "bad \xff utf-8",
		"héllo wörld", "bidi \u202e", "sep \u2028", "tail " + strings.Repeat("lorem ipsum ", 20)} {
		for _, max := range []int{3, 10, 1000} {
			if got, want := shown(s, max), shownSlow(s, max); got != want {
				t.Errorf("shown(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}
