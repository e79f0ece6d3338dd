package wire

import (
	"fmt"
	"io"

	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json/jsontext"
)

// AppendOpenAIJSON appends msgs as the JSON array the openai format
// prints, with indent per level ("" for compact): the bytes json.Marshal
// gives with jsontext.WithIndent(indent) and jsontext.AllowInvalidUTF8
// (TestAppendOpenAIJSON holds it to them), without the encoder's work per
// token. A cold compile's output is mostly this.
func AppendOpenAIJSON(dst []byte, msgs []OpenAIMessage, indent string) []byte {
	a := jsonAppender{b: dst, indent: indent}
	a.b = append(a.b, '[')
	for i := range msgs {
		a.sep(i, 1)
		a.message(&msgs[i], 1)
	}
	a.end(']', len(msgs) > 0, 0)
	return a.b
}

// WriteOpenAI writes the openai format of res as AppendOpenAIJSON lays out
// OpenAI(res.Messages), and a newline, without making that list: each
// message is shaped and written in turn through one small buffer, so the
// output of a long context never sits in memory whole. An empty context
// is ErrEmptyContext, as Render has it.
func WriteOpenAI(w io.Writer, res tract.Result, indent string) error {
	if len(res.Messages) == 0 {
		return fmt.Errorf("tract %s: %w", res.Tract, ErrEmptyContext)
	}
	msgs := apiMessages(res.Messages)
	return writeJSONArray(w, len(msgs), indent, func(a *jsonAppender, i int) {
		om := openAIMessage(&msgs[i])
		a.message(&om, 1)
	})
}

// WriteOpenAIJSON writes what AppendOpenAIJSON appends, and a newline,
// through one small buffer.
func WriteOpenAIJSON(w io.Writer, msgs []OpenAIMessage, indent string) error {
	return writeJSONArray(w, len(msgs), indent, func(a *jsonAppender, i int) { a.message(&msgs[i], 1) })
}

// writeJSONArray writes an array of n elements, each appended by elem at
// depth 1, and a newline, flushing its buffer as it fills.
func writeJSONArray(w io.Writer, n int, indent string, elem func(a *jsonAppender, i int)) error {
	const flushAt = 32 << 10
	a := jsonAppender{b: make([]byte, 0, flushAt+4<<10), indent: indent}
	a.b = append(a.b, '[')
	for i := range n {
		a.sep(i, 1)
		elem(&a, i)
		if len(a.b) >= flushAt {
			if _, err := w.Write(a.b); err != nil {
				return err
			}
			a.b = a.b[:0]
		}
	}
	a.end(']', n > 0, 0)
	a.b = append(a.b, '\n')
	_, err := w.Write(a.b)
	return err
}

// jsonAppender appends JSON by hand, laid out as jsontext lays it out.
type jsonAppender struct {
	b      []byte
	indent string
}

// sep starts the i-th element or member at depth d.
func (a *jsonAppender) sep(i, d int) {
	if i > 0 {
		a.b = append(a.b, ',')
	}
	a.line(d)
}

func (a *jsonAppender) line(d int) {
	if a.indent == "" {
		return
	}
	a.b = append(a.b, '\n')
	for range d {
		a.b = append(a.b, a.indent...)
	}
}

// end closes an object or array at depth d.
func (a *jsonAppender) end(c byte, nonEmpty bool, d int) {
	if nonEmpty {
		a.line(d)
	}
	a.b = append(a.b, c)
}

// name starts the i-th member at depth d (names here need no escaping).
func (a *jsonAppender) name(i, d int, n string) {
	a.sep(i, d)
	a.b = append(a.b, '"')
	a.b = append(a.b, n...)
	a.b = append(a.b, '"', ':')
	if a.indent != "" {
		a.b = append(a.b, ' ')
	}
}

// str appends s quoted; invalid UTF-8 becomes U+FFFD, as
// jsontext.AllowInvalidUTF8 has it.
func (a *jsonAppender) str(s string) { a.b = appendQuote(a.b, s) }

// appendQuote is jsontext.AppendQuote's output for s (invalid UTF-8 as
// U+FFFD). Most text a context holds is printable ASCII with nothing to
// escape: that is found eight bytes at a time and copied as it is.
func appendQuote(dst []byte, s string) []byte {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, b := x^(ones*'"'), x^(ones*'\\')
		// A byte ≥ 0x80, below 0x20, or a quote or backslash (zero after
		// the xor): the high bit of its lane is set.
		if (x|(x-ones*0x20)|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			dst, _ = jsontext.AppendQuote(dst, s)
			return dst
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

func (a *jsonAppender) message(m *OpenAIMessage, d int) {
	a.b = append(a.b, '{')
	a.name(0, d+1, "role")
	a.str(m.Role)
	a.name(1, d+1, "content")
	if m.Content == nil {
		a.b = append(a.b, "null"...)
	} else {
		a.str(*m.Content)
	}
	n := 2
	if m.Name != "" {
		a.name(n, d+1, "name")
		a.str(m.Name)
		n++
	}
	if m.ToolCallID != "" {
		a.name(n, d+1, "tool_call_id")
		a.str(m.ToolCallID)
		n++
	}
	if len(m.ToolCalls) > 0 {
		a.name(n, d+1, "tool_calls")
		a.b = append(a.b, '[')
		for j := range m.ToolCalls {
			tc := &m.ToolCalls[j]
			a.sep(j, d+2)
			a.b = append(a.b, '{')
			a.name(0, d+3, "id")
			a.str(tc.ID)
			a.name(1, d+3, "type")
			a.str(tc.Type)
			a.name(2, d+3, "function")
			a.b = append(a.b, '{')
			a.name(0, d+4, "name")
			a.str(tc.Function.Name)
			a.name(1, d+4, "arguments")
			a.str(tc.Function.Arguments)
			a.end('}', true, d+3)
			a.end('}', true, d+2)
		}
		a.end(']', true, d+1)
	}
	a.end('}', true, d)
}

// WriteOpenAIMessages writes the openai format of a compile handed out as
// a sequence (tract.Repo.CompileMessages), and a newline: the bytes
// WriteOpenAI writes of the same messages. Plain messages are shaped and
// written one at a time as they are read; others are repaired all at once
// first. An empty context is ErrEmptyContext; damage met while reading is
// the error, after what was written.
func WriteOpenAIMessages(w io.Writer, ms *tract.Messages, indent string) error {
	if ms.Len() == 0 {
		return fmt.Errorf("tract %s: %w", ms.Tract(), ErrEmptyContext)
	}
	if !ms.Plain() {
		msgs := apiMessages(ms.All())
		return writeJSONArray(w, len(msgs), indent, func(a *jsonAppender, i int) {
			om := openAIMessage(&msgs[i])
			a.message(&om, 1)
		})
	}
	var m tract.Message
	err := writeJSONArray(w, ms.Len(), indent, func(a *jsonAppender, i int) {
		ms.Next(&m)
		om := openAIMessage(&m)
		a.message(&om, 1)
	})
	if err == nil {
		err = ms.Err()
	}
	return err
}
