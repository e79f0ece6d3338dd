package fstest

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/instructions"
)

// broken gets two things wrong: Stat does not follow links, and
// OpenRegular opens a directory.
type broken struct{}

func (broken) Stat(name string) (fs.FileInfo, error)  { return os.Lstat(name) }
func (broken) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (broken) OpenRegular(name string) (io.ReadCloser, error) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		return nil, errors.New("a named pipe")
	}
	return os.Open(name)
}

// TestSuiteCatchesABrokenFS runs the suite on broken in a child process
// and checks that it fails there, naming both faults.
func TestSuiteCatchesABrokenFS(t *testing.T) {
	if os.Getenv("LINEAGE_FSTEST_BROKEN") == "1" {
		Run(t, func(*testing.T, string) instructions.FS { return broken{} })
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSuiteCatchesABrokenFS$")
	cmd.Env = append(os.Environ(), "LINEAGE_FSTEST_BROKEN=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed a broken FS:\n%s", out)
	}
	for _, want := range []string{"OpenRegular(dir): opened; want it refused", "Stat(link.md) ="} {
		// Where the platform makes no symbolic links (Windows without the
		// privilege) the suite skips its link checks, and says so.
		if want == "Stat(link.md) =" && !canSymlink(t) {
			continue
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("the suite's failure does not say %q:\n%s", want, out)
		}
	}
}

// canSymlink reports whether this process can make a symbolic link.
func canSymlink(t *testing.T) bool {
	dir := t.TempDir()
	return os.Symlink("target", filepath.Join(dir, "link")) == nil
}
