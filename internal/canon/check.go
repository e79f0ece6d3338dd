package canon

import "unicode/utf8"

// maxCheckDepth bounds the nesting IsCanonical follows; deeper input takes
// the full canonicalization.
const maxCheckDepth = 64

// IsCanonical reports whether b is one JSON value already in canonical
// form, so Canonicalize can return it as it is instead of parsing and
// writing it again (a session import hands tract some 20,000 metadata
// objects that its own encoder wrote in canonical order). It is
// conservative: true only for a subset it checks exactly (ASCII member
// names without escapes, strictly increasing; integers of at most 15
// digits; strings escaped as RFC 8785 escapes them); anything else, canonical
// or not, is false and goes the full way.
func IsCanonical(b []byte) bool {
	c := checker{b: b}
	return c.value(0) && c.i == len(b)
}

type checker struct {
	b []byte
	i int
}

func (c *checker) value(depth int) bool {
	if c.i >= len(c.b) || depth > maxCheckDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.object(depth)
	case ch == '[':
		return c.array(depth)
	case ch == '"':
		return c.str()
	case ch == '-' || '0' <= ch && ch <= '9':
		return c.number()
	default:
		return c.literal("true") || c.literal("false") || c.literal("null")
	}
}

func (c *checker) literal(lit string) bool {
	if len(c.b)-c.i < len(lit) || string(c.b[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.i += len(lit)
	return true
}

// number accepts 0 and -?[1-9][0-9]{0,14}: integers a float64 holds
// exactly, which ECMAScript prints as their digits.
func (c *checker) number() bool {
	start := c.i
	if c.b[c.i] == '-' {
		c.i++
	}
	digits := c.i
	for c.i < len(c.b) && '0' <= c.b[c.i] && c.b[c.i] <= '9' {
		c.i++
	}
	n := c.i - digits
	switch {
	case n == 0 || n > 15:
		return false
	case c.b[digits] == '0' && (n > 1 || digits > start): // 01, -0
		return false
	}
	return c.i >= len(c.b) || (c.b[c.i] != '.' && c.b[c.i] != 'e' && c.b[c.i] != 'E')
}

// str accepts a string whose escapes are the ones RFC 8785 writes: \" \\
// \b \f \n \r \t, and \u00xx (lower-case hex) for the other control
// characters; everything else stands as valid UTF-8.
func (c *checker) str() bool {
	c.i++ // the opening quote
	for c.i < len(c.b) {
		ch := c.b[c.i]
		switch {
		case ch == '"':
			c.i++
			return true
		case ch < 0x20:
			return false
		case ch == '\\':
			if !c.escape() {
				return false
			}
		case ch < utf8.RuneSelf:
			c.i++
		default:
			r, size := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && size <= 1 {
				return false
			}
			c.i += size
		}
	}
	return false
}

func (c *checker) escape() bool {
	if c.i+1 >= len(c.b) {
		return false
	}
	switch c.b[c.i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		c.i += 2
		return true
	case 'u':
	default:
		return false
	}
	if len(c.b)-c.i < 6 || string(c.b[c.i+2:c.i+4]) != "00" {
		return false
	}
	hi, lo := c.b[c.i+4], c.b[c.i+5]
	if hi != '0' && hi != '1' {
		return false
	}
	var v byte
	switch {
	case '0' <= lo && lo <= '9':
		v = lo - '0'
	case 'a' <= lo && lo <= 'f':
		v = lo - 'a' + 10
	default:
		return false
	}
	v += (hi - '0') * 16
	switch v {
	case '\b', '\f', '\n', '\r', '\t':
		return false // written short
	}
	c.i += 6
	return true
}

// name reads an object member's name: plain ASCII, no escape (whose byte
// order is the UTF-16 order RFC 8785 sorts by).
func (c *checker) name() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	start := c.i + 1
	for j := start; j < len(c.b); j++ {
		switch ch := c.b[j]; {
		case ch == '"':
			c.i = j + 1
			return c.b[start:j], true
		case ch < 0x20 || ch == '\\' || ch >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

func (c *checker) object(depth int) bool {
	c.i++ // {
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return true
	}
	var prev []byte
	for first := true; ; first = false {
		name, ok := c.name()
		if !ok || (!first && string(prev) >= string(name)) {
			return false
		}
		prev = name
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return false
		}
		c.i++
		if !c.value(depth + 1) {
			return false
		}
		if c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			return true
		default:
			return false
		}
	}
}

func (c *checker) array(depth int) bool {
	c.i++ // [
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return true
	}
	for {
		if !c.value(depth + 1) {
			return false
		}
		if c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			return true
		default:
			return false
		}
	}
}
