//go:build unix

package storetest

import "syscall"

// processCPU is the CPU time (user + system) this process has used, in
// seconds; ok is false where the platform cannot tell. Benchmarks report
// work per CPU second beside work per wall second: on a loaded machine the
// wall clock measures the neighbours.
func processCPU() (seconds float64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}

// ProcessCPU is processCPU for the benchmarks of other packages.
func ProcessCPU() (seconds float64, ok bool) { return processCPU() }
