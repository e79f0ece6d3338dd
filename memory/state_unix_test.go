//go:build unix

package memory

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO where a session's state file goes fails the delivery with a
// message at once: reading it would hang the hook, and the harness with it.
func TestDeliverRefusesAFIFOStateFile(t *testing.T) {
	dir := t.TempDir()
	o := DeliverOptions{StateDir: dir, Harness: "codex", Session: "s1", MaxBytes: 4096}
	if err := syscall.Mkfifo(filepath.Join(dir, stateName(o)), 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	m := Memory{ID: "a1", Scope: Project, Source: "lineage", Text: "x", Harness: "claude"}
	if _, err := Deliver(Candidates{Lineage: []Memory{m}}, o); err == nil {
		t.Fatal("a FIFO state file was read as state")
	} else {
		t.Log(err)
	}
}
