package triad

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Lines returns the 1-based lines of data, a JSON document, where the value
// at ptr (an RFC 6901 JSON Pointer; "" is the document) is written: for an
// object member the line of its name, for an array item the line its value
// starts on. A name that occurs more than once in an object gives one line
// per occurrence, in file order. Nothing found (or data that does not
// decode up to it) gives nil. It scans only what leads to ptr; a finding is
// given its line this way, so decoding keeps no positions.
func Lines(data []byte, ptr string) []int {
	if ptr == "" {
		return []int{lineAt(data, skipSpace(data, 0))}
	}
	s := &lineScan{dec: jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)), data: data, target: ptr}
	s.walk("", 0)
	return s.out
}

type lineScan struct {
	dec    *jsontext.Decoder
	data   []byte
	target string
	out    []int
}

// here is the line of the next token.
func (s *lineScan) here() int {
	return lineAt(s.data, skipSpace(s.data, int(s.dec.InputOffset())))
}

// walk reads the value at path, descending only where target lies.
func (s *lineScan) walk(path string, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s.dec.PeekKind() {
	case '{':
		if _, err := s.dec.ReadToken(); err != nil {
			return false
		}
		for s.dec.PeekKind() != '}' {
			if s.dec.PeekKind() == 0 {
				return false
			}
			line := s.here()
			name, err := s.dec.ReadToken()
			if err != nil || name.Kind() != '"' {
				return false
			}
			if !s.member(path+"/"+escapePointer(name.String()), line, depth) {
				return false
			}
		}
	case '[':
		if _, err := s.dec.ReadToken(); err != nil {
			return false
		}
		for i := 0; s.dec.PeekKind() != ']'; i++ {
			if s.dec.PeekKind() == 0 {
				return false
			}
			if !s.member(path+"/"+strconv.Itoa(i), s.here(), depth) {
				return false
			}
		}
	default:
		return s.dec.SkipValue() == nil
	}
	_, err := s.dec.ReadToken()
	return err == nil
}

// member records line when p is the target and reads p's value.
func (s *lineScan) member(p string, line, depth int) bool {
	if p == s.target {
		s.out = append(s.out, line)
	}
	if strings.HasPrefix(s.target, p+"/") {
		return s.walk(p, depth+1)
	}
	return s.dec.SkipValue() == nil
}

// skipSpace skips whitespace and the separators between tokens.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}
