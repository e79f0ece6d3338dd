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
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			break
		}
		if args, err := unix.SysctlRaw("kern.procargs2", pid); err == nil {
			out = append(out, procArgs(args)...)
		}
		kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
		if err != nil {
			break
		}
		pid = int(kp.Eproc.Ppid)
	}
	return out
}
