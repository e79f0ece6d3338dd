package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	w := &answerWriter{w: out, p: p}
	return &mcp.IOTransport{
		Reader: newDrainReader(in, p, w),
		Writer: w,
	}
}

// MaxMessageBytes is the longest stdio message (one line) the server
// reads; a longer line is answered with a parse error and skipped.
const MaxMessageBytes = 4 << 20

// JSON-RPC error codes of messages the server cannot read.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

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

// drainReader passes input through line by line, noting the request IDs
// in it. A line that is not JSON, is longer than [MaxMessageBytes] or is
// not a JSON-RPC message never reaches the SDK (which would end the
// connection): it is answered with an error of id null and skipped.
type drainReader struct {
	in  io.Reader
	r   *bufio.Reader
	p   *pending
	w   *answerWriter
	eof bool
	// buf is the part of the current message not yet passed on.
	buf []byte
	// extra is input made up after the end of input: error answers to the
	// server's requests.
	extra []byte
}

func (d *drainReader) Read(b []byte) (int, error) {
	for len(d.buf) == 0 {
		if d.eof {
			return d.afterEOF(b)
		}
		if err := d.next(); err != nil {
			return 0, err
		}
	}
	n := copy(b, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

func newDrainReader(in io.Reader, p *pending, w *answerWriter) *drainReader {
	return &drainReader{in: in, r: bufio.NewReaderSize(in, 64<<10), p: p, w: w}
}

// next reads one line into buf when it is a message to pass on.
func (d *drainReader) next() error {
	line, tooLong, err := readLine(d.r, MaxMessageBytes)
	if errors.Is(err, io.EOF) {
		d.eof = true
	} else if err != nil {
		return err
	}
	if tooLong {
		return d.refuse(codeParseError, fmt.Sprintf("parse error: message longer than %d bytes", MaxMessageBytes))
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		return d.refuse(codeParseError, "parse error: not JSON")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return d.refuse(codeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message (batches are not supported)")
	}
	noteRequests(line, d.p)
	d.buf = append(line, '\n')
	return nil
}

// refuse answers an unreadable message with an error of id null.
func (d *drainReader) refuse(code int, msg string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	_, err := d.w.Write(append(b, '\n'))
	return err
}

// readLine reads up to and without the next newline (or the end of
// input). A line longer than limit is read to its end and dropped:
// tooLong is set and line is nil.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			line = nil
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
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

func (d *drainReader) Close() error {
	d.p.close()
	if c, ok := d.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// answerWriter passes output through, noting the responses in it.
type answerWriter struct {
	mu sync.Mutex
	w  io.Writer
	p  *pending
}

func (a *answerWriter) Write(b []byte) (int, error) {
	// The reader writes error answers too: one message at a time.
	a.mu.Lock()
	defer a.mu.Unlock()
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
