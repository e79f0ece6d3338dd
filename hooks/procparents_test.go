package hooks

import (
	"encoding/binary"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// The test binary runs under `go test`: its parents are programs with
// absolute paths (on Linux from /proc, on Windows from a toolhelp
// snapshot); elsewhere the list may be empty, never wrong.
func TestProcParents(t *testing.T) {
	ps := procParents()
	for _, p := range ps {
		if !filepath.IsAbs(p) {
			t.Errorf("parent program %q is not absolute", p)
		}
	}
	if runtime.GOOS == "linux" && len(ps) == 0 {
		t.Error("no parent program found from /proc")
	}
}

// procArgs reads macOS's kern.procargs2 layout: argc, the executable,
// padding, then argv.
func TestProcArgs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("kern.procargs2 holds macOS's Unix paths, which are not absolute on Windows")
	}
	buf := binary.LittleEndian.AppendUint32(nil, 3)
	buf = append(buf, "/usr/local/bin/node\x00\x00\x00\x00node\x00/opt/claude/cli.js\x00-p\x00HOME=/x\x00"...)
	if got, want := procArgs(buf), []string{"/usr/local/bin/node", "/opt/claude/cli.js"}; !slices.Equal(got, want) {
		t.Errorf("procArgs = %q, want %q", got, want)
	}
	if got := procArgs([]byte{1, 0}); got != nil {
		t.Errorf("short buffer: %q", got)
	}
	if got, want := procArgv(buf), []string{"node", "/opt/claude/cli.js", "-p"}; !slices.Equal(got, want) {
		t.Errorf("procArgv = %q, want %q (argc 3: the environment after it is not argv)", got, want)
	}
}

// On Linux the test process's own parent (go test) is found with its
// arguments.
func TestProcParentArgs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("read from /proc on Linux; macOS's sysctl layout is TestProcArgs")
	}
	args := procParentArgs()
	if len(args) == 0 || len(args[0]) == 0 {
		t.Fatalf("no arguments of the parent process: %q", args)
	}
}
