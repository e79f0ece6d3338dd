package fsx

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// ProbeLock tells a held lock from a stale file and an absent one, and
// creates nothing.
func TestProbeLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".agency.lock")
	if s, err := ProbeLock(path); err != nil || s != LockAbsent {
		t.Fatalf("absent: %v %v", s, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("ProbeLock created the file")
	}
	l, err := LockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ProbeLock(path); err != nil || s != LockHeld {
		t.Fatalf("held: %v %v", s, err)
	}
	l.Unlock()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := ProbeLock(path); err != nil || s != LockStale {
		t.Fatalf("stale: %v %v", s, err)
	}
}
