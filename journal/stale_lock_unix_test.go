//go:build unix

package journal

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
)

func init() { workers["hold-lock"] = holdLockWorker }

// holdLockWorker takes the agency lock of root's agent s, says "held" and
// waits to be killed. It dies of SIGHUP even when it was started with
// SIGHUP ignored (nohup, some CI runners), which a child inherits: then it
// exits at once on SIGHUP, without unlocking, as the default action would.
func holdLockWorker(root, _ string, _ int) error {
	exitOnIgnoredHUP()
	l, err := fsx.LockFile(context.Background(), filepath.Join(root, ".clia/agents/s", agents.AgencyLockName))
	if err != nil {
		return err
	}
	defer l.Unlock()
	fmt.Println("held")
	waitForever()
	return nil
}

func lockLines(t *testing.T, root string) (warnings, info []string) {
	t.Helper()
	d, err := agents.Doctor(agents.Options{Path: root}, "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range d.Warnings {
		if strings.Contains(w, ".lock") {
			warnings = append(warnings, w)
		}
	}
	for _, i := range d.Info {
		if strings.Contains(i, ".lock") {
			info = append(info, i)
		}
	}
	return warnings, info
}

// A writer killed while it holds the agency lock (SIGKILL, or SIGHUP left
// to its default action) leaves the lock file: doctor tells a live holder
// (info) from a stale file (a warning saying what happens to it), and the
// next write takes the stale lock over and removes it.
func TestDoctorReportsAStaleLockAndTheNextWriteTakesItOver(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP} {
		root := tempRoot(t)
		write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@x.agency.triad.json": `{"entries": []}`})
		lock := filepath.Join(root, ".clia/agents/s", agents.AgencyLockName)
		cmd := workerCmd(t, "hold-lock", root, "", 0)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
			cmd.Process.Kill()
			t.Fatalf("worker said %q", line)
		}
		// The worker said "held" after LockFile returned: the lock is held
		// from here until the signal, however slow the machine.
		w, i := lockLines(t, root)
		if len(w) != 0 || len(i) != 1 || i[0] != lock+": held by a running writer" {
			t.Errorf("%v held: warnings %q, info %q", sig, w, i)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		// Wait returns once the worker is reaped: its descriptors, and
		// with them its flock, are gone.
		if err := cmd.Wait(); err == nil {
			t.Fatalf("the worker survived %v", sig)
		}
		want := lock + ": stale lock: no process holds it (a writer was killed); the next write takes it over and removes it, or delete it"
		if w, i := lockLines(t, root); len(w) != 1 || w[0] != want || len(i) != 0 {
			t.Errorf("%v stale: warnings %q, info %q", sig, w, i)
		}
		opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-01T00:00:00Z")}
		if res, err := Append(context.Background(), opts, Entry{Slug: "s", Note: "after", Signature: "-S"}); err != nil || !res.Written {
			t.Fatalf("write after %v: %+v %v", sig, res, err)
		}
		if _, err := os.Lstat(lock); err == nil {
			t.Errorf("the write after %v left the lock file", sig)
		}
		if w, i := lockLines(t, root); len(w)+len(i) != 0 {
			t.Errorf("after the write: %q %q", w, i)
		}
	}
}
