package fsx

import (
	"io/fs"
	"syscall"
)

// FileID identifies a physical file: the same file reached through two paths
// (a symlink, a hard link, a bind mount) has one FileID.
type FileID struct {
	Dev uint64
	Ino uint64
}

// IDOf returns the identity of the file fi describes; ok is false where the
// platform does not expose device and inode numbers.
func IDOf(fi fs.FileInfo) (id FileID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return FileID{}, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true //nolint:unconvert // widths differ by platform
}
