package mcpcmd_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/internal/cli"
	"github.com/agentlineage/lineage/internal/cli/clienv"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMCPHTTP runs `lineage mcp` with args until the test ends and returns
// the URL it serves.
func startMCPHTTP(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	e := &clienv.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: stderr, Dir: dir,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- cli.Run(ctx, append([]string{"mcp"}, args...), e) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	})
	re := regexp.MustCompile(`serving MCP on (http://\S+)`)
	for range 500 {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("server did not start: %s", stderr.String())
	return ""
}

func initialize(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestMCPHTTPAddressAfterFlag(t *testing.T) {
	// "--http ADDR" with a space, as the docs write it.
	url := startMCPHTTP(t, nil, "--http", "127.0.0.1:0")
	if !strings.HasSuffix(url, "/mcp") || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url = %s", url)
	}
	if got := initialize(t, url, nil); got != http.StatusOK {
		t.Fatalf("initialize: %d", got)
	}
	if got := initialize(t, url, map[string]string{"Origin": "https://evil.example"}); got != http.StatusForbidden {
		t.Fatalf("foreign origin: %d", got)
	}
}

func TestMCPHTTPTokenFromEnvironment(t *testing.T) {
	url := startMCPHTTP(t, map[string]string{"MCP_TOKEN": "s3cret-s3cret-s3cret"}, "--http=127.0.0.1:0", "--token-env", "MCP_TOKEN", "--stateless")
	for auth, want := range map[string]int{"": 401, "Bearer nope": 401, "Bearer s3cret-s3cret-s3cret": 200} {
		h := map[string]string{}
		if auth != "" {
			h["Authorization"] = auth
		}
		if got := initialize(t, url, h); got != want {
			t.Errorf("Authorization %q: %d, want %d", auth, got, want)
		}
	}
}

// Usage errors of lineage mcp exit 2 with a message, before anything listens.
func TestMCPUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, "lineage: --http 0.0.0.0:0 is not a loopback address: serving it needs --token-env VAR"},
		{[]string{"--http", ":7411"}, "lineage: --http :7411 is not a loopback address"},
		{[]string{"--allow-root", filepath.Join(dir, "missing")}, "lineage: --allow-root " + filepath.Join(dir, "missing") + ": not a directory"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		e := &clienv.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr, Dir: dir,
			LookupEnv: func(string) (string, bool) { return "", false }}
		if code := cli.Run(context.Background(), append([]string{"mcp"}, tt.args...), e); code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Contains(stderr.String(), "serving MCP on") {
			t.Errorf("mcp %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
