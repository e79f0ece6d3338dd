//go:build unix

package fsx

import (
	"io/fs"
	"syscall"
)

// IDOf returns the identity of the file at path, whose Stat (symlinks
// followed) is fi; ok is false where the platform or fi (from a fake
// filesystem) has none. On Unix the identity is read from fi alone.
func IDOf(path string, fi fs.FileInfo) (id FileID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return FileID{}, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true //nolint:unconvert // widths differ by platform
}
