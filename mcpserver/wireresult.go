package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

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
		if err := enc.Encode(t); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
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
// to the transport as wireResult.
func wireResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		ctr, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || ctr == nil || method != "tools/call" {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		p := ss.InitializeParams()
		return wireResult{ctr, p == nil || p.ProtocolVersion >= multiRoundTripVersion}, nil
	}
}
