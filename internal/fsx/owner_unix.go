//go:build unix

package fsx

import (
	"fmt"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of like when they differ from f's.
func keepOwner(f *os.File, like os.FileInfo) error {
	want, ok := like.Sys().(*syscall.Stat_t)
	if !ok || want == nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if got, ok := fi.Sys().(*syscall.Stat_t); ok && got.Uid == want.Uid && got.Gid == want.Gid {
		return nil
	}
	if err := f.Chown(int(want.Uid), int(want.Gid)); err != nil {
		return fmt.Errorf("keeping its owner %d:%d: %w", want.Uid, want.Gid, err)
	}
	// chown may clear set-id bits: give the mode back.
	return f.Chmod(like.Mode().Perm())
}
