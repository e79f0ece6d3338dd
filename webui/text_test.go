package webui

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// shownSlow is shown without its fast path for plain text: every rune
// looked at.
func shownSlow(s string, max int) string {
	cut := 0
	if len(s) > max {
		at := cutAt(s, max)
		cut = len(s) - at
		s = s[:at]
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('\u2421')
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	if cut > 0 {
		fmt.Fprintf(&b, "\n… %d more bytes not shown", cut)
	}
	return b.String()
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
