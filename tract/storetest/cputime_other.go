//go:build !unix

package storetest

// processCPU is unknown here (see cputime_unix.go).
func processCPU() (float64, bool) { return 0, false }

// ProcessCPU is processCPU for the benchmarks of other packages.
func ProcessCPU() (float64, bool) { return processCPU() }
