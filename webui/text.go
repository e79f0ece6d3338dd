package webui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxShownBytes bounds one stored text on a page; the rest is counted, not
// shown.
const MaxShownBytes = 64 << 10

// shown is stored text as a page shows it: at most max bytes (cut on a rune
// boundary), invalid UTF-8 replaced, and control characters other than
// newline and tab made visible as their Unicode control pictures (or
// \u escapes) so a stored ESC or NUL can neither hide text nor confuse a
// terminal the page is copied into. Escaping for HTML is the template's job.
func shown(s string, max int) string {
	cut := 0
	if len(s) > max {
		at := cutAt(s, max)
		cut = len(s) - at
		s = s[:at]
	}
	if !plainText(s) {
		s = visibleRunes(s)
	}
	if cut > 0 {
		s += fmt.Sprintf("\n… %d more bytes not shown", cut)
	}
	return s
}

// visibleRunes is s with invalid UTF-8 replaced and every control
// character other than newline and tab made visible (shown's rune walk,
// which plain text does not need).
func visibleRunes(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟
		case r == 0x7f:
			b.WriteRune('\u2421') // ␡
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cutAt is where s is cut to at most max bytes: on a rune boundary.
func cutAt(s string, max int) int {
	if len(s) <= max {
		return len(s)
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

// plainText reports whether shown keeps s as it is: printable ASCII,
// newlines and tabs only (most text; one pass, no copy).
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// oneLine makes newlines and tabs spaces.
var oneLine = strings.NewReplacer("\n", " ", "\t", " ")

// line is shown text on one line: newlines and tabs become spaces.
func line(s string, max int) string {
	return oneLine.Replace(shown(s, max))
}
