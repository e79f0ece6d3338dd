//go:build unix

package mcpserver

import "syscall"

// processCPU is the CPU time (user + system) this process has used; ok is
// false where the platform cannot tell. On a loaded machine the wall clock
// measures the neighbours: benchmarks report CPU per operation beside it.
func processCPU() (seconds float64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}
