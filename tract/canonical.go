package tract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/canon"
)

// Blobs and commits are hashed by their canonical JSON (RFC 8785). Imports
// hash hundreds of thousands of them, so the two fixed shapes are written
// directly, members already in canonical order; FuzzCanonical checks the
// result is byte for byte what internal/canon produces. Invalid UTF-8 falls
// back to canon, which reports it.

// appendString appends s as an RFC 8785 string: only '"', '\\' and control
// characters are escaped, the common ones by their short forms.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func member(b []byte, first *bool, name, value string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

// canonicalContent is canon.Marshal(c).
func canonicalContent(c Content) ([]byte, error) {
	valid := utf8.ValidString(c.Name) && utf8.ValidString(c.Role) && utf8.ValidString(c.Text) &&
		utf8.ValidString(c.ToolCallID) && utf8.ValidString(string(c.Type))
	for _, tc := range c.ToolCalls {
		valid = valid && utf8.ValidString(tc.ID) && utf8.ValidString(tc.Name) && utf8.ValidString(tc.Arguments)
	}
	if !valid || c.From != "" || len(c.Tools) > 0 {
		// Summaries and tools are rare: the general encoder places them.
		return canon.Marshal(c)
	}
	b := make([]byte, 0, 64+len(c.Text))
	b = append(b, '{')
	first := true
	if c.Name != "" {
		b = member(b, &first, "name", c.Name)
	}
	if c.Role != "" {
		b = member(b, &first, "role", c.Role)
	}
	if c.Seed {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `"seed":true`...)
	}
	if c.Text != "" {
		b = member(b, &first, "text", c.Text)
	}
	if c.ToolCallID != "" {
		b = member(b, &first, "toolCallId", c.ToolCallID)
	}
	if len(c.ToolCalls) > 0 {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `"toolCalls":[`...)
		for i, tc := range c.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			f := true
			b = append(b, '{')
			b = member(b, &f, "arguments", tc.Arguments)
			b = member(b, &f, "id", tc.ID)
			b = member(b, &f, "name", tc.Name)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = member(b, &first, "type", string(c.Type))
	return append(b, '}'), nil
}

// canonicalCommit is canon.Marshal of the commit's hashed form. Strings
// that are not valid UTF-8 are hashed with U+FFFD for each bad byte run.
func canonicalCommit(c Commit) []byte {
	return appendCanonicalCommit(make([]byte, 0, 256+len(c.Message)), &c)
}

// appendCanonicalCommit appends canonicalCommit(*c) to b.
func appendCanonicalCommit(b []byte, c *Commit) []byte {
	msg := strings.ToValidUTF8(c.Message, "\uFFFD")
	tractID := strings.ToValidUTF8(c.Tract, "\uFFFD")
	b = append(b, '{')
	first := true
	if c.Content != "" {
		b = member(b, &first, "content", strings.ToValidUTF8(string(c.Content), "\uFFFD"))
	}
	if c.EditTarget != "" {
		b = member(b, &first, "editTarget", strings.ToValidUTF8(string(c.EditTarget), "\uFFFD"))
	}
	if msg != "" {
		b = member(b, &first, "message", msg)
	}
	if len(c.Meta) > 0 {
		// Meta is canonical already (ParseMeta); a store hands back the
		// bytes it was given.
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `"meta":`...)
		b = append(b, c.Meta...)
	}
	b = member(b, &first, "operation", strings.ToValidUTF8(string(c.Operation), "\uFFFD"))
	b = append(b, `,"parents":[`...)
	for i, p := range c.Parents {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, strings.ToValidUTF8(string(p), "\uFFFD"))
	}
	b = append(b, ']')
	b = append(b, `,"time":"`...)
	b = c.Time.UTC().AppendFormat(b, time.RFC3339Nano) // no character to escape
	b = append(b, '"')
	b = member(b, &first, "tract", tractID)
	return append(b, '}')
}

func sha256Hex(b []byte) Hash {
	sum := sha256.Sum256(b)
	return Hash(hex.EncodeToString(sum[:]))
}

// commitHashes reports whether c's fields hash to c.Hash; scratch is a
// buffer to reuse (returned for the next call).
func commitHashes(c *Commit, scratch []byte) (bool, []byte) {
	scratch = appendCanonicalCommit(scratch[:0], c)
	return hashes(c.Hash, scratch), scratch
}

// hashes reports whether h is the hash of b, without making a string (a
// cold compile checks every blob it renders).
func hashes(h Hash, b []byte) bool {
	sum := sha256.Sum256(b)
	var buf [2 * sha256.Size]byte
	hex.Encode(buf[:], sum[:])
	return string(buf[:]) == string(h)
}
