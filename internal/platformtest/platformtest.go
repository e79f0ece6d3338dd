// Package platformtest holds the test helpers for what a platform may lack:
// a test that needs symbolic links, Unix mode bits or a POSIX shell calls
// one of these, and on a platform without it the test is skipped with a
// reason naming what is missing, never silently. Only tests import it.
package platformtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"
)

// TB is what the helpers need of a test: *testing.T, *testing.B and
// *rapid.T all have it.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Symlink creates newname as a symbolic link to oldname. Where the OS
// refuses (Windows without the create-symbolic-link privilege, which only
// administrators and Developer Mode have), the test is skipped saying so;
// any other failure fails it.
func Symlink(t TB, oldname, newname string) {
	t.Helper()
	err := os.Symlink(oldname, newname)
	if err == nil {
		return
	}
	if runtime.GOOS == "windows" {
		t.Skipf("needs a symbolic link, and Windows refused one (creating them takes the SeCreateSymbolicLinkPrivilege of an administrator or Developer Mode): %v", err)
	}
	t.Fatalf("symlink %s → %s: %v", newname, oldname, err)
}

// Perm checks that path has the Unix permission bits want. On Windows,
// whose files have none (os.FileMode there only says read-only or not), it
// logs that the check does not apply, so the rest of the test still runs.
func Perm(t interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}, path string, want os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Logf("%s: mode %v not checked: Windows files have no Unix permission bits", path, want)
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

// Dir, as a content in WriteTree's files, makes the path a directory.
const Dir = "<dir>"

// WriteTree writes files (slash-separated paths relative to root →
// content; [Dir] for a directory) with the platform's separators, making
// the directories they need, in sorted order.
func WriteTree(t TB, root string, files map[string]string) {
	t.Helper()
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		full := filepath.Join(root, filepath.FromSlash(p))
		if files[p] == Dir {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatalf("%v", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatalf("%v", err)
		}
		if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// AgeTree sets the modification times of the files and directories under
// root that changed in the last minute an hour back: out of the window in
// which a change could go unseen by a stat (fsx.RacyWindow), so a cache
// keyed by stats may reuse what was read. What did not change lately
// keeps its time.
func AgeTree(t TB, root string) {
	t.Helper()
	now := time.Now()
	old := now.Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := e.Info(); err != nil || fi.ModTime().Before(now.Add(-time.Minute)) {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatalf("age %s: %v", root, err)
	}
}
