//go:build !unix

package compose_test

func processCPU() (float64, bool) { return 0, false }
