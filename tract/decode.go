package tract

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
)

// DecodeContent decodes a blob's bytes. Blobs are canonical JSON of one
// fixed shape, so a direct scanner handles them (a cold compile decodes every
// blob of a history); anything it does not expect goes to the JSON decoder.
func DecodeContent(data []byte) (Content, error) {
	if c, ok := decodeCanonical(data); ok {
		return c, nil
	}
	var c Content
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("decode blob: %w", err)
	}
	return c, nil
}

// decodeCanonical scans {"key":"value",…} with the keys of Content in
// canonical order; ok is false for anything else (tool calls included).
func decodeCanonical(data []byte) (c Content, ok bool) {
	s := string(data)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' || !utf8.ValidString(s) {
		return c, false
	}
	i, last := 1, -1
	for i < len(s)-1 {
		if s[i] != '"' {
			return c, false
		}
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return c, false
		}
		key := s[i+1 : i+1+end]
		rank := strings.Index(canonicalKeys, ","+key+",")
		if rank <= last {
			return c, false // not in canonical order, or repeated
		}
		last = rank
		i += end + 2
		if i >= len(s) || s[i] != ':' {
			return c, false
		}
		i++
		if key == "seed" {
			if !strings.HasPrefix(s[i:], "true") {
				return c, false
			}
			c.Seed = true
			i += 4
		} else {
			v, n, ok := scanString(s[i:])
			if !ok {
				return c, false
			}
			i += n
			switch key {
			case "name":
				c.Name = v
			case "role":
				c.Role = v
			case "text":
				c.Text = v
			case "toolCallId":
				c.ToolCallID = v
			case "type":
				c.Type = Type(v)
			default:
				return c, false
			}
		}
		if s[i] == ',' {
			i++
		} else if i != len(s)-1 {
			return c, false
		}
	}
	return c, c.Type != ""
}

// canonicalKeys lists Content's members in canonical order.
const canonicalKeys = ",name,role,seed,text,toolCallId,toolCalls,type,"

// scanString reads a JSON string at the start of s as canonical JSON writes
// it (escapes only for '"', '\\' and control characters) and returns its
// value and length.
func scanString(s string) (string, int, bool) {
	if s == "" || s[0] != '"' {
		return "", 0, false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[1:i], i + 1, true
		case c == '\\':
			return scanEscaped(s)
		case c < 0x20:
			return "", 0, false
		}
	}
	return "", 0, false
}

func scanEscaped(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c < 0x20:
			return "", 0, false
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", 0, false
		}
		switch s[i] {
		case '"', '\\', '/':
			b.WriteByte(s[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if i+4 >= len(s) || s[i+1] != '0' || s[i+2] != '0' {
				return "", 0, false // only control characters are \u-escaped canonically
			}
			v := unhex(s[i+3])<<4 | unhex(s[i+4])
			if v < 0 || v >= 0x20 {
				return "", 0, false
			}
			b.WriteByte(byte(v))
			i += 4
		default:
			return "", 0, false
		}
	}
	return "", 0, false
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -256
}
