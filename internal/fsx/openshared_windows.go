//go:build windows

package fsx

import (
	"os"

	"golang.org/x/sys/windows"
)

// openShared opens name for reading with every sharing mode, delete
// included, so that where the file system lets a replace proceed over open
// handles the reader does not stand in its way (without FILE_SHARE_DELETE a
// MoveFileEx over the file fails for as long as it is open; the writer
// retries, see [ReplaceDeadline]). The reader keeps the version it opened.
func openShared(name string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}
