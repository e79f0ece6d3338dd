package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// MaxBytes bounds the front matter block; a larger block is refused before
// it is parsed.
const MaxBytes = 64 << 10

// Error is a front matter that cannot be split or decoded. Line is 1-based in
// the whole file; 0 when no line applies.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: front matter: %s", e.Line, e.Msg)
	}
	return "front matter: " + e.Msg
}

// ErrUnclosed reports a front matter opened by "---" that never closes.
var ErrUnclosed = errors.New("front matter opened by --- is never closed")

// Split returns the front matter's YAML text (without its delimiter lines)
// and the body after it. ok is false when data does not open with a "---"
// line: then yaml is nil and body is data. A UTF-8 byte order mark before the
// opening line is skipped. bodyLine is the 1-based line the body starts on.
func Split(data []byte) (yamlText, body []byte, bodyLine int, ok bool, err error) {
	rest := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, after, _ := cutLine(rest)
	if !isDelim(first, false) {
		return nil, data, 1, false, nil
	}
	start := after
	line := 2
	for len(after) > 0 {
		l, next, _ := cutLine(after)
		if isDelim(l, true) {
			yamlText = start[:len(start)-len(after)]
			if len(yamlText) > MaxBytes {
				return nil, nil, 0, true, &Error{Line: 1, Msg: fmt.Sprintf("larger than %d bytes", MaxBytes)}
			}
			return yamlText, next, line + 1, true, nil
		}
		after = next
		line++
	}
	return nil, nil, 0, true, &Error{Line: 1, Msg: ErrUnclosed.Error()}
}

// Decode splits data and decodes its front matter into v (a pointer to a
// struct or map, as yaml.Unmarshal takes). Keys v does not know are errors
// when strict is true. It returns the body; a file without front matter
// leaves v untouched and returns ok false.
func Decode(data []byte, v any, strict bool) (body []byte, ok bool, err error) {
	yamlText, body, _, ok, err := Split(data)
	if err != nil || !ok {
		return body, ok, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(yamlText))
	dec.KnownFields(strict)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return body, true, nil // empty front matter: nothing to decode
		}
		return nil, true, yamlError(err)
	}
	return body, true, nil
}

// cutLine returns the first line of b without its line ending, the rest after
// it, and whether a line ending was found.
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}

// isDelim reports whether line is "---" (or, closing, "..."), ignoring
// trailing spaces and tabs.
func isDelim(line []byte, closing bool) bool {
	t := bytes.TrimRight(line, " \t")
	return string(t) == "---" || (closing && string(t) == "...")
}

// yamlLine is compiled on first use: nothing runs at init.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlError turns a YAML error into an *Error whose line counts from the
// file's first line (the opening "---"), worded without the library's prefix.
func yamlError(err error) error {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n  ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if m := yamlLine().FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		line = n + 1 // the YAML text starts on the file's second line
		msg = msg[:m[0]] + msg[m[1]:]
		msg = strings.TrimPrefix(msg, ": ")
	}
	return &Error{Line: line, Msg: msg}
}
