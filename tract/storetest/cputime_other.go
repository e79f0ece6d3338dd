//go:build !unix

package storetest

// processCPU is unknown here (see cputime_unix.go).
func processCPU() (float64, bool) { return 0, false }
