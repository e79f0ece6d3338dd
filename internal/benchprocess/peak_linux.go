package main

import (
	"os"
	"syscall"
)

// peakBytes is the child's maximum resident set (Linux reports KiB).
func peakBytes(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024 // int32 on 32-bit Linux
	}
	return 0
}
