package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStdioAnswersEveryRequestBeforeExit pipes many requests and closes
// stdin at once: the SDK alone cancels what is still queued at end of
// input; the server must answer every one before it exits.
func TestStdioAnswersEveryRequestBeforeExit(t *testing.T) {
	dir := project(t)
	const n = 60
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= n; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
		case 1:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":"s%d","method":"tools/call","params":{"name":"instructions_resolve","arguments":{"paths":["sub/deep/f%d"]}}}`+"\n", i, i)
		default:
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"lineage://instructions/initial"}}`+"\n", i)
		}
	}
	// The last request has no newline: it must be answered too.
	fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, n+1)

	for round := range 3 {
		cmd := serverProc{cwd: dir, stateDir: t.TempDir()}.command(t)
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("round %d: server: %v", round, err)
		}
		got := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct {
				ID    json.RawMessage `json:"id"`
				Error *struct{ Message string }
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("bad output line %q: %v", sc.Text(), err)
			}
			if m.Error != nil {
				t.Errorf("round %d: request %s failed: %s", round, m.ID, m.Error.Message)
			}
			got[string(m.ID)] = true
		}
		for i := 0; i <= n+1; i++ {
			id := fmt.Sprint(i)
			if i%3 == 1 && i <= n {
				id = fmt.Sprintf(`"s%d"`, i)
			}
			if !got[id] {
				t.Fatalf("round %d: no response to request %s (%d responses)", round, id, len(got))
			}
		}
	}
}

// TestServerRequestAfterEndOfInputIsAnswered: a client with roots closes
// its input right after a tool call; the server's roots/list can never be
// answered by it, so the transport answers it and the call completes.
func TestServerRequestAfterEndOfInputIsAnswered(t *testing.T) {
	dir := project(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"instructions_initial","arguments":{}}}` + "\n"
	cmd := serverProc{cwd: dir, stateDir: t.TempDir()}.command(t)
	cmd.Stdin = strings.NewReader(in)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server hangs waiting for an answer the client cannot give")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"method":"roots/list"`) || !strings.Contains(string(out), `{"jsonrpc":"2.0","id":2,`) {
		t.Fatalf("output:\n%s", out)
	}
}

func TestDrainReaderPassesMessagesAndAnswersTheRest(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `[{"jsonrpc":"2.0","id":"x","method":"b"}]` + "\n" + `not json` + "\n" +
		`{"id":2,"method":"c"}` + "\n" + strings.Repeat("x", MaxMessageBytes+10) + "\n\n" + `{"jsonrpc":"2.0","id":3,"method":"d"}`
	p := newPending()
	var errs strings.Builder
	w := &answerWriter{w: &errs, p: p}
	r := newDrainReader(&oneByteReader{strings.NewReader(input)}, p, w)
	go func() {
		// Answer each request once it has been read, as the server would.
		for _, a := range []struct{ id, resp string }{{"n:1", `{"jsonrpc":"2.0","id":1,"result":{}}`}, {"n:3", `{"jsonrpc":"2.0","id":3,"error":{}}`}} {
			p.mu.Lock()
			for _, ok := p.ids[a.id]; !ok; _, ok = p.ids[a.id] {
				p.mu.Unlock()
				time.Sleep(time.Millisecond)
				p.mu.Lock()
			}
			p.mu.Unlock()
			w.Write([]byte(a.resp + "\n"))
		}
	}()
	got, err := io.ReadAll(r)
	want := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"d"}` + "\n"
	if err != nil || string(got) != want {
		t.Fatalf("read %q, %v", got, err)
	}
	lines := strings.Split(strings.TrimSpace(errs.String()), "\n")
	codes := []string{}
	for _, l := range lines {
		var m struct {
			ID    *int `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Error != nil && m.ID == nil {
			codes = append(codes, strconv.Itoa(m.Error.Code))
		}
	}
	if strings.Join(codes, ",") != "-32600,-32700,-32600,-32700" {
		t.Fatalf("error answers %v in:\n%.300s", codes, errs.String())
	}
}

func TestDrainReaderStopsWaitingWhenClosed(t *testing.T) {
	p := newPending()
	r := newDrainReader(strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"slow"}`+"\n"), p, &answerWriter{w: io.Discard, p: p})
	done := make(chan error)
	go func() { _, err := io.ReadAll(r); done <- err }()
	r.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestCancelledRequestIsNotWaitedFor(t *testing.T) {
	p := newPending()
	in := `{"jsonrpc":"2.0","id":7,"method":"slow"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n"
	r := newDrainReader(strings.NewReader(in), p, &answerWriter{w: io.Discard, p: p})
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(b []byte) (int, error) {
	if len(b) > 1 {
		b = b[:1]
	}
	return o.r.Read(b)
}

func TestIDKey(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`1`, "n:1", true},
		{`1.0`, "n:1", true},
		{`"1"`, "s:1", true},
		{`null`, "", false},
		{``, "", false},
		{`{}`, "", false},
	}
	for _, tt := range tests {
		got, ok := idKey(json.RawMessage(tt.raw))
		if got != tt.want || ok != tt.ok {
			t.Errorf("idKey(%s) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzStdioFraming feeds the stdio server arbitrary bytes (cut into lines,
// some of them oversized) and then one valid request: whatever came before,
// the server answers it, and every line it writes is a JSON-RPC message.
func FuzzStdioFraming(f *testing.F) {
	f.Add([]byte("not json"), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"a"}`), false)
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"x","method":"b"}]`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x"}`), false)
	f.Add([]byte("\x00\xff{\n}\n"), true)
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), false)
	srv, err := New(Options{Cwd: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, junk []byte, oversized bool) {
		var in bytes.Buffer
		in.Write(bytes.ReplaceAll(junk, []byte("999"), []byte("998")))
		if oversized {
			in.WriteString(strings.Repeat("y", MaxMessageBytes+1))
		}
		in.WriteString("\n" + `{"jsonrpc":"2.0","id":999,"method":"ping"}` + "\n")
		var out lockedBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// The server may end the session on what the junk says (an
		// initialize with a bad version); it must not end it on framing.
		_ = srv.ServeStdio(ctx, &in, &out)
		if !strings.Contains(out.String(), `"id":999,"result":{}`) {
			t.Fatalf("no answer to the ping after %q (oversized %v); output:\n%.500s", junk, oversized, out.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !json.Valid([]byte(line)) || !strings.Contains(line, `"jsonrpc":"2.0"`) {
				t.Fatalf("output line is not a JSON-RPC message: %.200q", line)
			}
		}
	})
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
