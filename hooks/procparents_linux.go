//go:build linux

package hooks

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procParents lists the programs of the hook's ancestor processes, nearest
// first, up to four levels: each process's executable and, for an
// interpreter (node running cli.js), its absolute script arguments. On
// Linux it reads /proc (procparents_darwin.go and procparents_windows.go
// ask those systems).
func procParents() []string {
	var out []string
	procAncestors(func(dir string, args []string) {
		if exe, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
			out = append(out, exe)
		}
		for _, a := range args[min(1, len(args)):min(3, len(args))] {
			if filepath.IsAbs(a) {
				out = append(out, a)
			}
		}
	})
	return out
}

// procParentArgs lists the arguments (argv) of the hook's ancestor
// processes, nearest first, up to four levels.
func procParentArgs() [][]string {
	var out [][]string
	procAncestors(func(_ string, args []string) { out = append(out, args) })
	return out
}

// procAncestors calls visit with the /proc directory and the arguments of
// each of the hook's ancestor processes, nearest first, up to four levels.
func procAncestors(visit func(dir string, args []string)) {
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			break
		}
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		var args []string
		if cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
			args = strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		}
		visit(dir, args)
		pid = parentPID(filepath.Join(dir, "stat"))
	}
}

// parentPID reads the parent's id from a /proc/<pid>/stat file (the field
// after the command, which is in parentheses and may hold spaces); 0 when
// unreadable.
func parentPID(stat string) int {
	data, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
