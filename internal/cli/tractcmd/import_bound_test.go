package tractcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/cli/clienv"
)

// endless is an input that never ends, of spaces then "[".
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
		if e.n++; e.n == 100 {
			p[i] = '['
		}
	}
	return len(p), nil
}

// TestImportReadIsBounded: import reads at most its limit from stdin or a
// file that never ends, and a regular file larger than the limit is
// refused before it is read; the messages name the limit.
func TestImportReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	env := &clienv.Env{Stdin: &endless{}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Dir: dir}
	if _, name, err := readImport(env, "-", 1<<20); err == nil || name != "stdin" || !strings.Contains(err.Error(), "read stdin: more than import reads (1 MiB)") {
		t.Errorf("endless stdin: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readImport(env, "big.json", 1<<20); err == nil || !strings.Contains(err.Error(), "read big.json: 2097152 bytes, more than import reads (1 MiB)") {
		t.Errorf("large file: %v", err)
	}
	if data, _, err := readImport(env, "big.json", 4<<20); err != nil || len(data) != 2<<20 {
		t.Errorf("file within the limit: %d bytes, %v", len(data), err)
	}
	// /dev/zero is an absolute path only where there is one (on Windows
	// it names a file on the current drive).
	if _, err := os.Stat("/dev/zero"); err == nil && filepath.IsAbs("/dev/zero") {
		// Refused at its first byte: not JSON.
		if _, _, err := readImport(env, "/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "read /dev/zero: not JSON (it starts with byte 0x00") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
