//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noHang fails the test instead of hanging it when fn blocks.
func noHang(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked (hang detector)")
	}
}

func TestReadRegularRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	toFIFO := filepath.Join(dir, "to-fifo")
	if err := os.Symlink(fifo, toFIFO); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, want string
		is         error
	}{
		{fifo, "is a fifo, not a regular file", ErrNotRegular},
		{toFIFO, "is a fifo, not a regular file", ErrNotRegular},
		{dir, "is a directory, not a regular file", ErrNotRegular},
		{"/dev/zero", "is a device, not a regular file", ErrNotRegular},
		{loop, "is a symbolic link loop", syscall.ELOOP},
		{filepath.Join(dir, "missing"), "no such file", fs.ErrNotExist},
	}
	for _, c := range cases {
		noHang(t, func() {
			_, err := ReadRegular(c.path, -1)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
				t.Errorf("ReadRegular(%s) = %v, want %q (%v)", c.path, err, c.want, c.is)
			}
		})
	}
}

func TestReadRegularLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadRegular(p, 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: err = %v, want ErrTooLarge", err)
	}
	// A sparse file far over the limit is refused from its size alone.
	big := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skip(err)
	}
	f.Close()
	if _, err := ReadRegular(big, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("sparse 1 TiB: err = %v", err)
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.json")
	for _, n := range []string{".a.json.tmp-123", ".a.json.tmp-456", ".b.json.tmp-1", "a.json", ".a.json.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveStaleTemps(target); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, " "); got != ".a.json.tmp .b.json.tmp-1 a.json" {
		t.Errorf("left = %s", got)
	}
}

func TestLineSafe(t *testing.T) {
	for in, want := range map[string]string{
		"/repo/a b/AGENTS.md":          "/repo/a b/AGENTS.md",
		"/repo/é/\"q\"\\":              "/repo/é/\"q\"\\",
		"/p\n- /etc/passwd (mtime: 1)": `"/p\n- /etc/passwd (mtime: 1)"`,
		"/a\x1b[31m":                   `"/a\x1b[31m"`,
		"/bad\xff":                     `"/bad\xff"`,
		"/sep\u2028x":                  `"/sep\u2028x"`,
	} {
		if got := LineSafe(in); got != want {
			t.Errorf("LineSafe(%q) = %s, want %s", in, got, want)
		}
	}
}
