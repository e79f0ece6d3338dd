//go:build unix

package tractcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentlineage/lineage/internal/cli/clienv"
)

// TestTractCommitFileBounded: commit --file of more than a commit may hold
// (here 68 MB through a FIFO, so the test sees what was read) is refused
// with a usage error after reading little more than the limit, not the
// whole file; nothing is stored.
func TestTractCommitFileBounded(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := tractRun(t, dir, "tract", "init"); code != 0 {
		t.Fatal(stderr)
	}
	fifo := filepath.Join(dir, "big.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	const size = 68 << 20
	var written atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		chunk := []byte(strings.Repeat("a", 1<<16))
		for written.Load() < size {
			n, err := f.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return // the reader closed the pipe
			}
		}
	}()
	code, _, stderr := tractRun(t, dir, "tract", "commit", "--file", "big.txt")
	// Unblock the writer if the command never opened the FIFO (opened and
	// closed unread: the writer's next write fails).
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		r.Close()
	}
	<-done
	if code != clienv.ExitUsage || !strings.Contains(stderr, "--file big.txt holds more than 4194304 bytes, the limit for one commit") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if got := written.Load(); got > 8<<20 {
		t.Fatalf("read %d bytes of a %d-byte file to refuse it", got, size)
	}
	if code, stdout, _ := tractRun(t, dir, "tract", "log"); code != 0 || stdout != "" {
		t.Fatalf("log after the refused commit: %d %q", code, stdout)
	}
}
