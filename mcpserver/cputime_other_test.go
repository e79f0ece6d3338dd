//go:build !unix

package mcpserver

func processCPU() (float64, bool) { return 0, false }
