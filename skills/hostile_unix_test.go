//go:build unix

package skills

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withTimeout fails instead of hanging when fn blocks (a FIFO opened for
// reading blocks until a writer comes).
func withTimeout(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked: a FIFO was opened for reading")
	}
}

// A hostile skill folder: a SKILL.md that is a FIFO, one that links out of
// the root, a skill folder that links out, one too large, a folder name
// that is not UTF-8, a dangling link and a link loop. Each is reported
// with its path and reason; none hangs, is followed or is read; the good
// skill is still listed, and its resources cannot reach out either.
func TestHostileFolders(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret", "SKILL.md"), skillMD("secret", "outside the root", "secret body"))
	write(t, filepath.Join(outside, "secret.txt"), "secret")
	dir := tree(t, map[string]string{
		".agents/skills/good/SKILL.md":  skillMD("good", "fine", "see [x](x.md)"),
		".agents/skills/good/x.md":      "x",
		".agents/skills/huge/SKILL.md":  skillMD("huge", "big", strings.Repeat("word ", 300)),
		".agents/skills/fifo/.keep":     "",
		".agents/skills/linkfile/.keep": "",
		".agents/skills/dangling/.keep": "",
	})
	at := func(rel string) string { return filepath.Join(dir, ".agents", "skills", filepath.FromSlash(rel)) }
	if err := syscall.Mkfifo(at("fifo/SKILL.md"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret", "SKILL.md"), at("linkfile/SKILL.md")))
	must(os.Symlink(filepath.Join(outside, "secret"), at("linkdir")))
	must(os.Symlink("nowhere", at("dangling/SKILL.md")))
	must(os.Symlink("loop", at("loop")))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), at("good/out.txt")))
	bad := at("bad\xffname")
	utf8OK := os.Mkdir(bad, 0o755) == nil
	if utf8OK {
		write(t, filepath.Join(bad, "SKILL.md"), skillMD("bad", "not utf-8", "x"))
	}
	var c *Catalog
	withTimeout(t, func() { c = discover(t, Options{Cwd: dir, Root: rootCfg, MaxFileBytes: 1000}) })
	if got := names(c.Skills); len(got) != 1 || got[0] != "good" {
		t.Errorf("skills = %v, want only good", got)
	}
	var probs []string
	for _, p := range c.Problems {
		probs = append(probs, strings.ReplaceAll(p.String(), dir, "ROOT"))
	}
	want := []string{
		"ROOT/.agents/skills/dangling/SKILL.md: does not exist (a dangling symbolic link?)",
		"ROOT/.agents/skills/fifo/SKILL.md: is a fifo, not a regular file: skipped",
		"ROOT/.agents/skills/huge/SKILL.md: file too large: 1536 bytes, the limit is 1000: skipped",
		"ROOT/.agents/skills/linkdir: a symbolic link leads outside ROOT: not followed",
		"ROOT/.agents/skills/linkfile/SKILL.md: a symbolic link leads outside ROOT: not followed",
		"ROOT/.agents/skills/loop: a symbolic link loop: not followed",
	}
	if utf8OK {
		want = append([]string{`"ROOT/.agents/skills/bad\xffname": the name is not valid UTF-8: skipped`}, want...)
	}
	if strings.Join(probs, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(probs, "\n"), strings.Join(want, "\n"))
	}
	for _, rel := range []string{"out.txt", "../huge/SKILL.md", "/etc/passwd"} {
		if l, err := c.Resource("good", rel); err == nil {
			t.Errorf("resource %s read: %q", rel, l.Content)
		}
	}
	if l, err := c.Resource("good", "x.md"); err != nil || l.Content != "x" {
		t.Errorf("x.md: %v %v", l, err)
	}
	// A FIFO swapped in as a resource is refused, not opened.
	must(syscall.Mkfifo(at("good/pipe"), 0o644))
	withTimeout(t, func() {
		if _, err := c.Resource("good", "pipe"); err == nil || !strings.Contains(err.Error(), "fifo") {
			t.Errorf("pipe: %v", err)
		}
	})
	// The body listing leaves out what is not a regular file.
	l, err := c.Load("good")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.Files, ",") != "x.md" {
		t.Errorf("files = %v", l.Files)
	}
}

// TestDotDotLoopReported: a symbolic link to ".." (or to the skills folder
// itself, or higher) in a skills folder is a loop: reported with its path
// and not followed, the real skill beside it still listed once.
func TestDotDotLoopReported(t *testing.T) {
	dir := tree(t, map[string]string{
		".agents/skills/good/SKILL.md":   skillMD("good", "fine", "body"),
		".agents/skills/group/one/.keep": "",
	})
	at := func(rel string) string { return filepath.Join(dir, ".agents", "skills", filepath.FromSlash(rel)) }
	for link, target := range map[string]string{"up": "..", "self": ".", "group/back": "../..", "group/one/top": "../../../.."} {
		if err := os.Symlink(target, at(link)); err != nil {
			t.Fatal(err)
		}
	}
	var c *Catalog
	withTimeout(t, func() { c = discover(t, Options{Cwd: dir, Root: rootCfg}) })
	if got := names(c.Skills); len(got) != 1 || got[0] != "good" {
		t.Errorf("skills = %v, want only good", got)
	}
	var probs []string
	for _, p := range c.Problems {
		probs = append(probs, strings.ReplaceAll(p.String(), dir, "ROOT"))
	}
	want := []string{
		"ROOT/.agents/skills/group/back: a symbolic link to a folder that holds it (a loop): not followed",
		"ROOT/.agents/skills/group/one/top: a symbolic link to a folder that holds it (a loop): not followed",
		"ROOT/.agents/skills/self: a symbolic link to a folder that holds it (a loop): not followed",
		"ROOT/.agents/skills/up: a symbolic link to a folder that holds it (a loop): not followed",
	}
	if strings.Join(probs, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(probs, "\n"), strings.Join(want, "\n"))
	}
}
