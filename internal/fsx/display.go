package fsx

import (
	"strconv"
	"unicode/utf8"
)

// LineSafe returns s as it may appear in line-oriented text (a reminder, a
// listing): unchanged when every character is printable, otherwise quoted
// with strconv.Quote, so a name holding a newline, an escape sequence or
// bytes that are not UTF-8 can never add or break a line. A quoted path
// starts with '"' and an absolute one with '/', so the two never mix up.
func LineSafe(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
		i += n
	}
	return s
}
