package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func httpServer(t *testing.T, opts Options, o HTTPOptions) *httptest.Server {
	t.Helper()
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(o))
	t.Cleanup(ts.Close)
	return ts
}

// headerTransport adds fixed headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, url string, headers map[string]string, roots ...string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	for _, r := range roots {
		client.AddRoots(&mcp.Root{URI: "file://" + r})
	}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:   url + HTTPPath,
		HTTPClient: &http.Client{Transport: headerTransport(headers)},
		MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func TestHTTPResolveTwiceReportsNothingNew(t *testing.T) {
	dir := project(t)
	ts := httpServer(t, Options{Cwd: dir}, HTTPOptions{})
	cs, err := connectHTTP(t, ts.URL, map[string]string{"Origin": "http://localhost:5173"})
	if err != nil {
		t.Fatal(err)
	}
	var first, second ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/deep"}}, &first)
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/deep"}}, &second)
	if len(pathsOf(first)) != 2 || len(pathsOf(second)) != 0 {
		t.Fatalf("first %v, second %v", pathsOf(first), pathsOf(second))
	}
}

func TestHTTPStatelessSharesTheSavedSession(t *testing.T) {
	dir := project(t)
	state := filepath.Join(dir, ".lineage")
	ts := httpServer(t, Options{Cwd: dir, Stateless: true, StateDir: state}, HTTPOptions{})
	a, err := connectHTTP(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A client with roots works too: a stateless server cannot ask for them.
	b, err := connectHTTP(t, ts.URL, nil, filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	var ra, rb ResolveOutput
	call(t, a, "instructions_resolve", map[string]any{"paths": []string{"sub"}}, &ra)
	call(t, b, "instructions_resolve", map[string]any{"paths": []string{"sub"}}, &rb)
	if len(pathsOf(ra)) != 1 || len(pathsOf(rb)) != 0 {
		t.Fatalf("a %v, b %v: stateless clients share one session", pathsOf(ra), pathsOf(rb))
	}
	// The shared session is rooted at the server's directory, whatever a
	// client's roots say.
	var in InitialOutput
	call(t, b, "instructions_initial", nil, &in)
	if len(in.Files) != 1 {
		t.Fatalf("stateless initial = %+v", in.Files)
	}
}

func TestHTTPRefusesForeignOrigin(t *testing.T) {
	ts := httpServer(t, Options{Cwd: project(t)}, HTTPOptions{})
	tests := []struct {
		origin string
		want   int
	}{
		{"https://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"file://", http.StatusForbidden},
		{"http://127.0.0.1:3000", http.StatusOK},
		{"http://localhost", http.StatusOK},
		{"http://[::1]:8080", http.StatusOK},
		{"", http.StatusOK},
	}
	for _, tt := range tests {
		if got := postInitialize(t, ts.URL, map[string]string{"Origin": tt.origin}); got != tt.want {
			t.Errorf("Origin %q: status %d, want %d", tt.origin, got, tt.want)
		}
	}
	if _, err := connectHTTP(t, ts.URL, map[string]string{"Origin": "https://evil.example"}); err == nil {
		t.Error("a client with a foreign origin connected")
	}
}

func TestHTTPBearerToken(t *testing.T) {
	ts := httpServer(t, Options{Cwd: project(t)}, HTTPOptions{Token: "s3cret"})
	tests := []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cret2", http.StatusUnauthorized},
		{"Basic s3cret", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK},
	}
	for _, tt := range tests {
		if got := postInitialize(t, ts.URL, map[string]string{"Authorization": tt.auth}); got != tt.want {
			t.Errorf("Authorization %q: status %d, want %d", tt.auth, got, tt.want)
		}
	}
	if _, err := connectHTTP(t, ts.URL, nil); err == nil {
		t.Error("a client without the token connected")
	}
	cs, err := connectHTTP(t, ts.URL, map[string]string{"Authorization": "Bearer s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	var in InitialOutput
	call(t, cs, "instructions_initial", nil, &in)
}

// postInitialize sends a raw initialize request and returns the status.
func postInitialize(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url+HTTPPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
