package handoff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func pendingFor(project, text string) Pending {
	return Pending{Harness: "codex", Project: project, Session: "claude-s1", Tract: "handoff-x", At: "abcd",
		Created: t0, Expires: t0.Add(Expiry), Text: text}
}

func TestPendingClaimOnceReleaseAndExpiry(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "handoffs"))
	project := filepath.Join(t.TempDir(), "repo")
	// No folder yet: nothing pending, nothing made.
	if c, err := d.Claim("codex", project, t0); c != nil || err != nil {
		t.Fatalf("claim of nothing: %v, %v", c, err)
	}
	if err := d.Leave(pendingFor(project, "first")); err != nil {
		t.Fatal(err)
	}
	if err := d.Leave(pendingFor(project, "second")); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := d.Peek("codex", project, t0); !ok || err != nil || p.Text != "second" {
		t.Fatalf("peek: %+v %v %v", p, ok, err)
	}
	// Another harness or project finds nothing.
	if c, _ := d.Claim("claude", project, t0); c != nil {
		t.Fatal("claude claimed codex's handoff")
	}
	if c, _ := d.Claim("codex", filepath.Join(project, "sub"), t0); c != nil {
		t.Fatal("a subfolder claimed the project's handoff")
	}
	c, err := d.Claim("codex", project, t0)
	if err != nil || c == nil || c.Text != "second" {
		t.Fatalf("claim: %+v %v", c, err)
	}
	if again, _ := d.Claim("codex", project, t0); again != nil {
		t.Fatal("claimed twice")
	}
	// The answer was not written: it is back for the next start.
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	c, err = d.Claim("codex", project, t0.Add(time.Hour))
	if err != nil || c == nil {
		t.Fatalf("claim after release: %v %v", c, err)
	}
	if err := c.Done(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.Peek("codex", project, t0); ok {
		t.Fatal("delivered handoff still pending")
	}
	// Expired: never delivered, and removed.
	if err := d.Leave(pendingFor(project, "old")); err != nil {
		t.Fatal(err)
	}
	if c, err := d.Claim("codex", project, t0.Add(Expiry)); c != nil || err != nil {
		t.Fatalf("expired handoff claimed: %v %v", c, err)
	}
	entries, _ := os.ReadDir(string(d))
	if len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

func TestPendingReleaseKeepsNewer(t *testing.T) {
	d := Dir(t.TempDir())
	project := t.TempDir()
	if err := d.Leave(pendingFor(project, "old")); err != nil {
		t.Fatal(err)
	}
	c, err := d.Claim("codex", project, t0)
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	if err := d.Leave(pendingFor(project, "new")); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if p, ok, _ := d.Peek("codex", project, t0); !ok || p.Text != "new" {
		t.Fatalf("after release: %+v", p)
	}
}

// TestHelperClaimProcess is one session start of
// TestPendingClaimedByOneProcess; it does nothing in a normal run.
func TestHelperClaimProcess(t *testing.T) {
	dir := os.Getenv("HANDOFF_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	c, err := Dir(dir).Claim("codex", os.Getenv("HANDOFF_HELPER_PROJECT"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if c != nil {
		os.Stdout.WriteString("CLAIMED " + c.Text + "\n")
		if err := c.Done(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPendingClaimedByOneProcess starts several processes claiming one
// pending handoff at once: exactly one gets it.
func TestPendingClaimedByOneProcess(t *testing.T) {
	n := 4
	if testing.Short() {
		n = 2
	}
	d := Dir(t.TempDir())
	project := t.TempDir()
	if err := d.Leave(pendingFor(project, "the handoff")); err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, n)
	outs := make([]strings.Builder, n)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperClaimProcess$")
		cmd.Env = append(os.Environ(), "HANDOFF_HELPER_DIR="+string(d), "HANDOFF_HELPER_PROJECT="+project)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	claimed := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i].String())
		}
		claimed += strings.Count(outs[i].String(), "CLAIMED the handoff")
	}
	if claimed != 1 {
		t.Fatalf("%d processes claimed the handoff, want 1", claimed)
	}
	if _, ok, _ := d.Peek("codex", project, t0); ok {
		t.Fatal("still pending after delivery")
	}
}
