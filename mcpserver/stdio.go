package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the SDK's newline-delimited JSON-RPC transport over in
// and out, changed in one respect: at the end of input it holds back the
// end-of-file until every request read so far has been answered.
//
// Why: the SDK treats end of input as "the peer is gone" and cancels the
// requests still queued or running, so a client that writes several requests
// and closes its end at once (a shell pipe, a batch runner) loses the
// answers to all but the first few. Here the reader stops only when the
// writer has sent a response for every request ID it saw (or the
// connection is closed); a request the client cancels with
// notifications/cancelled is not waited for. A request the server sends the
// client after its end of input can never be answered, so the reader
// answers it with an error itself instead of letting the server wait.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	p := newPending()
	return &mcp.IOTransport{
		Reader: &drainReader{r: in, p: p},
		Writer: &answerWriter{w: out, p: p},
	}
}

// pending is the set of request IDs read and not yet answered, and of the
// server's own requests to the client not yet answered.
type pending struct {
	mu     sync.Mutex
	cond   *sync.Cond
	ids    map[string]struct{}
	closed bool
	// outgoing maps the key of each unanswered server request to its raw ID.
	outgoing map[string]json.RawMessage
}

func newPending() *pending {
	p := &pending{ids: map[string]struct{}{}, outgoing: map[string]json.RawMessage{}}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pending) call(key string, id json.RawMessage) {
	p.mu.Lock()
	p.outgoing[key] = id
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *pending) answered(key string) {
	p.mu.Lock()
	delete(p.outgoing, key)
	p.mu.Unlock()
}

func (p *pending) add(id string) {
	p.mu.Lock()
	p.ids[id] = struct{}{}
	p.mu.Unlock()
}

func (p *pending) done(id string) {
	p.mu.Lock()
	delete(p.ids, id)
	if len(p.ids) == 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

func (p *pending) close() {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// wait blocks until nothing is pending or the connection is closed
// (done), or until the server has asked the client something, which it
// returns answered with an error: the client can no longer answer.
func (p *pending) wait() (answers []byte, done bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ids) > 0 && !p.closed && len(p.outgoing) == 0 {
		p.cond.Wait()
	}
	if len(p.outgoing) == 0 || p.closed {
		return nil, true
	}
	for key, id := range p.outgoing {
		answers = append(answers, `{"jsonrpc":"2.0","id":`...)
		answers = append(answers, id...)
		answers = append(answers, `,"error":{"code":-32000,"message":"the client closed its input"}}`+"\n"...)
		delete(p.outgoing, key)
	}
	return answers, false
}

// drainReader passes input through, noting the request IDs in it.
type drainReader struct {
	r    io.Reader
	p    *pending
	line []byte
	eof  bool
	// extra is input made up after the end of input: error answers to the
	// server's requests.
	extra []byte
}

func (d *drainReader) Read(b []byte) (int, error) {
	if d.eof {
		return d.afterEOF(b)
	}
	n, err := d.r.Read(b)
	d.scan(b[:n])
	if err == nil {
		return n, nil
	}
	if !errors.Is(err, io.EOF) {
		return n, err
	}
	d.eof = true
	if len(d.line) > 0 {
		noteRequests(d.line, d.p)
		d.line = nil
	}
	if n > 0 {
		// The requests in b must reach the server before EOF is reported.
		return n, nil
	}
	return d.afterEOF(b)
}

// afterEOF holds the end of input back until every request is answered.
func (d *drainReader) afterEOF(b []byte) (int, error) {
	for len(d.extra) == 0 {
		answers, done := d.p.wait()
		if done {
			return 0, io.EOF
		}
		d.extra = answers
	}
	n := copy(b, d.extra)
	d.extra = d.extra[n:]
	return n, nil
}

// scan notes the requests of every complete line in b.
func (d *drainReader) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			d.line = append(d.line, b...)
			return
		}
		if len(d.line) > 0 {
			d.line = append(d.line, b[:i]...)
			noteRequests(d.line, d.p)
			d.line = d.line[:0]
		} else {
			noteRequests(b[:i], d.p)
		}
		b = b[i+1:]
	}
}

func (d *drainReader) Close() error {
	d.p.close()
	if c, ok := d.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// answerWriter passes output through, noting the responses in it.
type answerWriter struct {
	w io.Writer
	p *pending
}

func (a *answerWriter) Write(b []byte) (int, error) {
	// The SDK writes one message (or one batch) per call. A request is
	// noted before it is written (its answer may come back at once), a
	// response after (the reader must not report EOF before it is out).
	msgs := decodeMessages(b)
	noteCalls(msgs, a.p)
	n, err := a.w.Write(b)
	noteResponses(msgs, a.p)
	return n, err
}

func (a *answerWriter) Close() error {
	a.p.close()
	return nil
}

// wireMessage is the part of a JSON-RPC message the drain needs.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

func decodeMessages(line []byte) []wireMessage {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var batch []wireMessage
		if json.Unmarshal(line, &batch) != nil {
			return nil
		}
		return batch
	}
	var m wireMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []wireMessage{m}
}

func noteRequests(line []byte, p *pending) {
	for _, m := range decodeMessages(line) {
		switch {
		case m.Method == "notifications/cancelled":
			if id, ok := idKey(m.Params.RequestID); ok {
				p.done(id)
			}
		case m.Method != "":
			if id, ok := idKey(m.ID); ok {
				p.add(id)
			}
		default:
			// The client's answer to a request of the server.
			if id, ok := idKey(m.ID); ok {
				p.answered(id)
			}
		}
	}
}

// noteCalls records the server's requests to the client.
func noteCalls(msgs []wireMessage, p *pending) {
	for _, m := range msgs {
		if id, ok := idKey(m.ID); ok && m.Method != "" {
			p.call(id, m.ID)
		}
	}
}

// noteResponses records the server's answers to the client's requests.
func noteResponses(msgs []wireMessage, p *pending) {
	for _, m := range msgs {
		if id, ok := idKey(m.ID); ok && m.Method == "" {
			p.done(id)
		}
	}
}

// idKey normalizes a JSON-RPC ID (a string or a number) to a map key.
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s:" + v, true
	case float64:
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}
