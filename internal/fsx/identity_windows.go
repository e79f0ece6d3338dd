//go:build windows

package fsx

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/windows"
)

// IDOf returns the identity of the file at path, whose Stat (symlinks
// followed) is fi; ok is false when it cannot be read. A Windows FileInfo
// carries no file index, so the file is opened for its attributes only (no
// read access, every sharing mode, so no writer is disturbed), following
// symlinks like the Stat did.
func IDOf(path string, fi fs.FileInfo) (id FileID, ok bool) {
	if _, real := fi.Sys().(*syscall.Win32FileAttributeData); !real {
		return FileID{}, false // a fake filesystem's file: path is not on disk
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return FileID{}, false
	}
	h, err := windows.CreateFile(p, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return FileID{}, false
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return FileID{}, false
	}
	return FileID{
		Dev: uint64(info.VolumeSerialNumber),
		Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
	}, true
}
