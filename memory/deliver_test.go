package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDeliverOnceRankedCapped(t *testing.T) {
	ctx := context.Background()
	repo := testRepo(t, filepath.Join(t.TempDir(), "s.db"))
	proj := filepath.Join(t.TempDir(), "p")
	w := Where{User: "ann", Project: proj, Cwd: filepath.Join(proj, "web")}
	mustAdd(t, repo, w, User, "prefers tabs")
	mustAdd(t, repo, Where{User: "ann", Project: proj, Cwd: filepath.Join(proj, "web")}, Project, "web tests need a browser")
	mustAdd(t, repo, Where{User: "ann", Project: proj, Cwd: filepath.Join(proj, "api")}, Project, "api uses port 7411")
	lin, err := List(ctx, repo, w)
	if err != nil {
		t.Fatal(err)
	}
	native := []Memory{
		{Scope: Project, Text: "claude remembers this", Source: "claude", File: "/h/.claude/projects/-p/memory/MEMORY.md"},
		{Scope: User, Text: "Prefers   TABS", Source: "gemini", File: "/h/.gemini/GEMINI.md"},
	}
	state := t.TempDir()
	o := DeliverOptions{Where: w, Harness: "gemini", Session: "s-1", StateDir: state, MaxBytes: DefaultMaxBytes}
	d, err := Deliver(Candidates{Lineage: lin, Native: native}, o)
	if err != nil {
		t.Fatal(err)
	}
	// Gemini's own memory and the lineage memory of the same text are
	// not sent to Gemini; the folder's memory leads.
	if got := texts(d.Sent); got != "web tests need a browser | api uses port 7411 | claude remembers this" {
		t.Fatalf("sent: %s", got)
	}
	want := "- web tests need a browser (project memory " + d.Sent[0].ID + ", saved by claude in session sess-123 at 2026-11-28T12:04:00Z)"
	if !strings.Contains(d.Text, want) || !strings.Contains(d.Text, "(Claude Code's own memory in /h/.claude/projects/-p/memory/MEMORY.md)") {
		t.Fatalf("text:\n%s", d.Text)
	}
	if err := d.Done(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := Deliver(Candidates{Lineage: lin, Native: native}, o)
	if err != nil || again.Text != "" {
		t.Fatalf("second start of the session got %q %v", again.Text, err)
	}
	// Another session gets them; a cap leaves out what does not fit.
	o.Session, o.MaxBytes = "s-2", len(d.Text)-10
	capped, _ := Deliver(Candidates{Lineage: lin, Native: native}, o)
	if len(capped.Text) > o.MaxBytes || len(capped.Left) == 0 || len(capped.Sent) == 0 {
		t.Fatalf("capped at %d: %d bytes, %d sent, %d left", o.MaxBytes, len(capped.Text), len(capped.Sent), len(capped.Left))
	}
	o.MaxBytes = 0
	if off, _ := Deliver(Candidates{Lineage: lin}, o); off.Text != "" {
		t.Fatal("a zero cap sent memory")
	}
	// Claude gets Gemini's memory file, not its own.
	o.Harness, o.Session, o.MaxBytes = "claude", "c-1", DefaultMaxBytes
	c, _ := Deliver(Candidates{Native: native}, o)
	if got := texts(c.Sent); got != "Prefers   TABS" {
		t.Fatalf("to claude: %s", got)
	}
	entries, _ := os.ReadDir(state)
	if len(entries) < 1 {
		t.Fatal("no state written")
	}
}

func TestNativeFiles(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(t.TempDir(), "repo")
	env := NativeEnv{Getenv: func(string) string { return "" }, Home: home}
	w := Where{User: "ann", Project: proj, Cwd: proj}
	files := NativeFiles(env, w)
	claude := files[0].Path
	if err := os.MkdirAll(filepath.Dir(claude), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(claude, []byte("# Memory\n\n- [Build](build.md) — run make first\n1. second fact\n```\n- not one\n```\n"), 0o644)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "GEMINI.md"), []byte("# Mine\n- not a memory\n\n## Gemini Added Memories\n- likes Go\n- \n## Other\n- no\n"), 0o644)
	ms, warnings := Native(env, w)
	if len(warnings) != 0 {
		t.Fatal(warnings)
	}
	if got := texts(ms); got != "[Build](build.md) — run make first | second fact | likes Go" {
		t.Fatalf("native: %s", got)
	}
	if ms[0].Source != "claude" || ms[0].File != claude || ms[2].Source != "gemini" || ms[2].Scope != User {
		t.Fatalf("sources: %+v", ms)
	}
	if !strings.Contains(filepath.ToSlash(claude), "/projects/") || !strings.HasSuffix(filepath.ToSlash(claude), "/memory/MEMORY.md") {
		t.Fatalf("claude path %s", claude)
	}
	_ = time.Now
}
