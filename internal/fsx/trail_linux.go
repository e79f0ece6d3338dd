package fsx

import (
	"io/fs"
	"syscall"
)

// changeTime is the inode change time of fi (0 without one).
func changeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st != nil {
		return st.Ctim.Nano()
	}
	return 0
}
