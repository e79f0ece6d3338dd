//go:build windows

package hooks

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procParents lists the programs of the hook's ancestor processes, nearest
// first, up to four levels. Windows has no /proc: one toolhelp snapshot of
// the processes gives each one's parent, and QueryFullProcessImageName its
// executable's path. A process's arguments are not read (that needs
// another process's memory), so an interpreter's script (node running
// cli.js) is not seen: the executable is, which is enough for a native
// install or a packaged claude.exe.
func procParents() []string {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	parent := map[uint32]uint32{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		parent[e.ProcessID] = e.ParentProcessID
	}
	var out []string
	pid := uint32(os.Getppid())
	for range 4 {
		if pid == 0 {
			break
		}
		if exe := imagePath(pid); exe != "" {
			out = append(out, exe)
		}
		pid = parent[pid]
	}
	return out
}

// imagePath is the executable of process pid, "" when it cannot be read.
func imagePath(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}

// procParentArgs: Windows does not give another process's arguments
// without reading its memory; none.
func procParentArgs() [][]string { return nil }
