package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireResult is a tools/call result the server encodes itself: the same
// bytes as the SDK's (*mcp.CallToolResult).MarshalJSON, made in one pass
// for the common shape (text contents and a raw structured result, no
// _meta). The SDK's encoding escapes each text, re-reads it as a
// marshaler's output, and re-reads the whole result again (encoding/json
// checks what MarshalJSON returns); for context_compile's ~25 KB result
// that is a third of the server's answer. Any other shape is the SDK's
// own encoding (TestWireResultBytes holds the two equal).
type wireResult struct {
	*mcp.CallToolResult
	// complete: the SDK set the result's resultType to "complete" (the
	// session's protocol has multi-round-trip results).
	complete bool
	// quoted are the JSON string forms of text contents their handler
	// made already, in pieces without the quotes (quotedTexts); nil for
	// the others.
	quoted [][][]byte
}

func (w wireResult) MarshalJSON() ([]byte, error) {
	r := w.CallToolResult
	raw, rawOK := r.StructuredContent.(json.RawMessage)
	if r.Meta != nil || r.InputRequests != nil || r.RequestState != "" || r.Content == nil ||
		(r.StructuredContent != nil && (!rawOK || raw == nil)) {
		return r.MarshalJSON()
	}
	texts := make([]string, len(r.Content))
	size := 64 + len(raw)
	for i, c := range r.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok || tc == nil || tc.Meta != nil || tc.Annotations != nil {
			return r.MarshalJSON()
		}
		texts[i] = tc.Text
		size += len(tc.Text) + len(tc.Text)/8 + 32
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	// encoding/json's strings, HTML-escaped as json.Marshal writes them,
	// straight into b.
	enc := json.NewEncoder(b)
	b.WriteString(`{"content":[`)
	for i, t := range texts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":`)
		if i < len(w.quoted) && w.quoted[i] != nil {
			b.WriteByte('"')
			for _, piece := range w.quoted[i] {
				b.Write(piece)
			}
			b.WriteByte('"')
		} else {
			if err := enc.Encode(t); err != nil {
				return nil, err
			}
			b.Truncate(b.Len() - 1) // Encode's newline
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if rawOK {
		// As the SDK's: the raw value compacted and HTML-escaped (it is
		// a marshaler inside json.Marshal).
		b.WriteString(`,"structuredContent":`)
		if err := enc.Encode(raw); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	if r.IsError {
		b.WriteString(`,"isError":true`)
	}
	if w.complete {
		b.WriteString(`,"resultType":"complete"`)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// multiRoundTripVersion is the first protocol version whose results carry
// a resultType: the SDK sets it (unexported) on every tool result of a
// session at or past it without input requests, or of no session
// (clientSupportsMultiRoundTrip), as "complete".
const multiRoundTripVersion = "2026-07-28"

// wireResults is the receiving middleware that hands tools/call results
// to the transport as wireResult, with the JSON string forms of their
// texts that q holds (nil: none).
func wireResults(q *quotedTexts) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			ctr, ok := res.(*mcp.CallToolResult)
			if err != nil || !ok || ctr == nil || method != "tools/call" {
				return res, err
			}
			quoted := q.take(ctr.Content)
			ss, ok := req.GetSession().(*mcp.ServerSession)
			if !ok {
				return res, err
			}
			p := ss.InitializeParams()
			return wireResult{ctr, p == nil || p.ProtocolVersion >= multiRoundTripVersion, quoted}, nil
		}
	}
}

// quotedTexts are the JSON string forms (encoding/json's, HTML-escaped,
// in pieces, without the quotes) of text contents that handlers made along with them
// (context_compile: from its request's lines, see lineCounts), until the
// result is encoded. Safe for concurrent use; a nil *quotedTexts holds
// nothing.
type quotedTexts struct {
	mu sync.Mutex
	m  map[*mcp.TextContent]quotedText
}

type quotedText struct {
	text   string
	quoted [][]byte
}

// maxQuotedTexts bounds what quotedTexts holds (a result whose encoding
// never comes leaves its entry): when full it starts over.
const maxQuotedTexts = 64

func (q *quotedTexts) put(tc *mcp.TextContent, quoted [][]byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.m == nil || len(q.m) >= maxQuotedTexts {
		q.m = map[*mcp.TextContent]quotedText{}
	}
	q.m[tc] = quotedText{tc.Text, quoted}
}

// take removes the forms held for contents and returns them in order (nil
// where none is, or where the content's text is no longer the one the
// form was made of); nil when none is held.
func (q *quotedTexts) take(contents []mcp.Content) [][][]byte {
	if q == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.m) == 0 {
		return nil
	}
	var out [][][]byte
	for i, c := range contents {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		qt, ok := q.m[tc]
		if !ok {
			continue
		}
		delete(q.m, tc)
		if qt.text != tc.Text {
			continue
		}
		if out == nil {
			out = make([][][]byte, len(contents))
		}
		out[i] = qt.quoted
	}
	return out
}
