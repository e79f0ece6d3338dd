// Package jsonc reads JSON with comments, the settings format of editors
// and of harnesses such as opencode (which parses it with VS Code's
// jsonc-parser): "//" and "/* */" comments and a comma before a closing
// bracket or brace are allowed. It turns such text into standard JSON of
// the same length, so that a decoder's error offsets, lines and columns
// are those of the file as written.
package jsonc

import "fmt"

// Standard returns b as standard JSON: every comment and every trailing
// comma replaced by spaces, newlines kept. Anything else the JSON grammar
// refuses is left as it is, for the decoder to report. b is not changed.
func Standard(b []byte) ([]byte, error) {
	out := make([]byte, len(b))
	copy(out, b)
	if err := blankComments(out); err != nil {
		return nil, err
	}
	blankTrailingCommas(out)
	return out, nil
}

// blankComments replaces comments outside strings with spaces.
func blankComments(b []byte) error {
	line := 1
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\n':
			line++
		case c == '"':
			i = stringEnd(b, i)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			if i < len(b) {
				line++
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			start := line
			b[i], b[i+1] = ' ', ' '
			i += 2
			for ; i+1 < len(b) && (b[i] != '*' || b[i+1] != '/'); i++ {
				if b[i] == '\n' {
					line++
				} else {
					b[i] = ' '
				}
			}
			if i+1 >= len(b) {
				return fmt.Errorf("line %d: a comment (/*) that never ends", start)
			}
			b[i], b[i+1] = ' ', ' '
			i++
		}
	}
	return nil
}

// blankTrailingCommas replaces a comma outside strings whose next
// non-space byte closes an array or object.
func blankTrailingCommas(b []byte) {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
		case ',':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == ']' || b[j] == '}') {
				b[i] = ' '
			}
		}
	}
}

// stringEnd is the index of the quote closing the string opened at
// b[open] (the last index when it is never closed).
func stringEnd(b []byte, open int) int {
	for i := open + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b) - 1
}
