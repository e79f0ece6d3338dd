package compose

import (
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/tract/wire"
)

// RequestTexts makes [Result.RequestText] for a face that answers every
// turn (the MCP server): it remembers the encoding of each OpenAI message
// it wrote, so the next request, the same messages and a new one, encodes
// only the new one; the rest of the request (model, tools) is encoded
// every time and the messages are spliced into it. The text is the same
// bytes as RequestText's (TestRequestTextsMatch). It holds at most
// requestTextBytes of encodings and forgets them all when full. Safe for
// concurrent use; the zero value is ready.
type RequestTexts struct {
	mu    sync.Mutex
	m     map[openAIKey][]byte
	bytes int
	// prev and prevLines are the messages of the last text (as keys; ok
	// false for one with tool calls) and their encodings: the next
	// request is mostly the same messages (the window moved on by one),
	// found by comparing in order, without hashing.
	prev      []prevKey
	prevLines [][]byte
	// hits and misses count the messages found and encoded (tests).
	hits, misses int
}

const requestTextBytes = 4 << 20

type prevKey struct {
	key openAIKey
	ok  bool
}

// openAIKey is an OpenAI message without tool calls (those are encoded
// every time).
type openAIKey struct {
	role, content, name, toolCallID string
	null                            bool
}

// Text is res.RequestText().
func (c *RequestTexts) Text(res Result) (string, error) {
	// rest is the request without its messages.
	var (
		msgs []wire.OpenAIMessage
		rest wire.Rendered
	)
	switch r := res.Request; {
	case r.Format == FormatOpenAI:
		msgs, rest = r.OpenAI, wire.Rendered{Format: FormatOpenAI, OpenAI: []wire.OpenAIMessage{}}
	case r.Format == FormatOpenAIRequest && r.OpenAIRequest != nil:
		cp := *r.OpenAIRequest
		cp.Messages = []wire.OpenAIMessage{}
		msgs, rest = r.OpenAIRequest.Messages, wire.Rendered{Format: FormatOpenAIRequest, OpenAIRequest: &cp}
	default:
		return res.RequestText()
	}
	// The request without messages, its lines broken as RequestText
	// breaks them; the messages go where its empty array is.
	b, err := json.Marshal(rest, json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return "", err
	}
	var frame strings.Builder
	frame.Grow(len(b) + len(b)/32)
	breakElements(&frame, b)
	f := frame.String()
	// An unescaped quote only starts or ends a string, so the first
	// `"messages":[]` is the member (model and max_completion_tokens
	// come before it and are scalars); the bare array is `[]`.
	at := 1
	if rest.Format == FormatOpenAIRequest {
		i := strings.Index(f, `"messages":[]`)
		if i < 0 {
			return res.RequestText()
		}
		at = i + len(`"messages":[`)
	}
	lines, err := c.encode(msgs)
	if err != nil {
		return "", err
	}
	n := len(f)
	for _, l := range lines {
		n += len(l) + 2
	}
	var out strings.Builder
	out.Grow(n)
	out.WriteString(f[:at])
	for i, l := range lines {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteByte('\n')
		out.Write(l)
	}
	out.WriteString(f[at:])
	return out.String(), nil
}

// encode is each message's compact JSON, from the last text's messages
// or the cache when it is there.
func (c *RequestTexts) encode(msgs []wire.OpenAIMessage) ([][]byte, error) {
	lines := make([][]byte, len(msgs))
	var missed []int
	c.mu.Lock()
	j := 0
	for i := range msgs {
		key, ok := keyOf(&msgs[i])
		if !ok {
			missed = append(missed, i)
			continue
		}
		// The last text's messages in order: the same one next, or one a
		// few further on (the oldest of the window dropped).
		if k := c.findPrev(&key, j); k >= 0 {
			lines[i], j = c.prevLines[k], k+1
			c.hits++
			continue
		}
		if l, ok := c.m[key]; ok {
			lines[i] = l
			c.hits++
			continue
		}
		missed = append(missed, i)
	}
	c.misses += len(missed)
	c.mu.Unlock()
	for _, i := range missed {
		l, err := json.Marshal(msgs[i], json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
		if err != nil {
			return nil, err
		}
		lines[i] = l
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prev = c.prev[:0]
	for i := range msgs {
		k, ok := keyOf(&msgs[i])
		c.prev = append(c.prev, prevKey{k, ok})
	}
	c.prevLines = lines
	for _, i := range missed {
		k, ok := keyOf(&msgs[i])
		if !ok || len(lines[i]) > requestTextBytes/8 {
			continue
		}
		if c.m == nil || c.bytes+len(lines[i]) > requestTextBytes {
			c.m, c.bytes = map[openAIKey][]byte{}, 0
		}
		if _, ok := c.m[k]; !ok {
			c.m[k] = lines[i]
			c.bytes += len(lines[i]) + len(k.content)
		}
	}
	return lines, nil
}

// prevSearch is how far past the expected position encode looks for a
// message among the last text's.
const prevSearch = 8

// findPrev is the index of a message of the last text whose key is k,
// looking from j on, or -1. The contents of a window's messages are the
// same strings from one request to the next: comparing them is mostly
// comparing pointers (the runtime's equality starts there).
func (c *RequestTexts) findPrev(k *openAIKey, j int) int {
	for i := j; i < len(c.prev) && i < j+prevSearch; i++ {
		if p := &c.prev[i]; p.ok && p.key == *k {
			return i
		}
	}
	return -1
}

// keyOf is m's key; false for a message with tool calls.
func keyOf(m *wire.OpenAIMessage) (openAIKey, bool) {
	if len(m.ToolCalls) > 0 {
		return openAIKey{}, false
	}
	k := openAIKey{role: m.Role, name: m.Name, toolCallID: m.ToolCallID, null: m.Content == nil}
	if m.Content != nil {
		k.content = *m.Content
	}
	return k, true
}
