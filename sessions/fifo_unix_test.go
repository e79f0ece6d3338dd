//go:build unix

package sessions

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRefusesAFIFO: a FIFO named as a transcript is refused at once,
// never opened (an open would wait for a writer, and the hook with it).
func TestReadRefusesAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rollout-x.jsonl")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	for _, rd := range []Reader{ClaudeReader{}, CodexReader{}, GeminiReader{}} {
		if _, err := rd.Read(context.Background(), Source{Harness: rd.Harness(), Path: p}, Cursor{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: got %v", rd.Harness(), err)
		}
	}
}
