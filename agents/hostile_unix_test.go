//go:build unix

package agents

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An inherits target is reported as what it is, never just as missing, and
// only stat is used, so a FIFO or a device cannot block.
func TestInheritProblemSaysWhatItIs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	loop := filepath.Join(dir, "loop.json")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero":                     "/dev/zero is a device, not a regular file",
		fifo:                            fifo + " is a fifo, not a regular file",
		dir:                             dir + " is a directory, not a regular file",
		loop:                            loop + " is a symbolic link loop",
		filepath.Join(dir, "none.json"): filepath.Join(dir, "none.json") + " is missing",
		file:                            "",
	} {
		if got := inheritProblem(path); got != want {
			t.Errorf("inheritProblem(%s) = %q, want %q", path, got, want)
		}
	}
}

// A FIFO named .gitmodules is reported and skipped without blocking.
func TestFIFOGitmodulesDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".gitmodules"), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan []string, 1)
	go func() { _, _, w := DefaultDomains(filepath.Join(dir, "sub")); done <- w }()
	select {
	case w := <-done:
		if len(w) != 1 || !strings.Contains(w[0], ".gitmodules is a fifo, not a regular file") {
			t.Errorf("warnings = %q", w)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("DefaultDomains blocked on a FIFO .gitmodules (hang detector)")
	}
}

func TestValidateSlugLimits(t *testing.T) {
	for slug, want := range map[string]string{
		"tau":                               "",
		"root@todo3":                        "",
		"é-ü":                               "",
		strings.Repeat("s", MaxSlugBytes):   "",
		strings.Repeat("s", MaxSlugBytes+1): "129 bytes, the limit is 128",
		"t\nx":                              "only printable UTF-8 characters",
		"t\x1b[2J":                          "only printable UTF-8 characters",
		"t\xff":                             "only printable UTF-8 characters",
		"a/b":                               "it names a single directory",
		"..":                                "it names a single directory",
		" ":                                 "slug is required",
	} {
		err := ValidateSlug(slug)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ValidateSlug(%q) = %v, want %q", slug, err, want)
		}
	}
}
