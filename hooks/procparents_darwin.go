//go:build darwin

package hooks

import (
	"os"

	"golang.org/x/sys/unix"
)

// procParents lists the programs of the hook's ancestor processes, nearest
// first, up to four levels: each process's executable and, for an
// interpreter (node running cli.js), its absolute script arguments. macOS
// has no /proc: the parent comes from sysctl kern.proc.pid, the program
// and arguments from kern.procargs2 (the executable path, then argv).
func procParents() []string {
	var out []string
	procAncestors(func(buf []byte) { out = append(out, procArgs(buf)...) })
	return out
}

// procParentArgs lists the arguments (argv) of the hook's ancestor
// processes, nearest first, up to four levels.
func procParentArgs() [][]string {
	var out [][]string
	procAncestors(func(buf []byte) { out = append(out, procArgv(buf)) })
	return out
}

// procAncestors calls visit with the kern.procargs2 buffer of each of the
// hook's ancestor processes, nearest first, up to four levels.
func procAncestors(visit func(buf []byte)) {
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			break
		}
		if buf, err := unix.SysctlRaw("kern.procargs2", pid); err == nil {
			visit(buf)
		}
		kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
		if err != nil {
			break
		}
		pid = int(kp.Eproc.Ppid)
	}
}
