//go:build windows

package fsx

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// replaceFile moves src over dst with MoveFileEx. REPLACE_EXISTING makes it
// one atomic replace on NTFS; WRITE_THROUGH returns only once the move is on
// disk, standing in for the directory sync Windows does not have. A file
// another process holds open without FILE_SHARE_DELETE (Go's os.Open does)
// refuses the replace for as long as it is open, so that is retried.
func replaceFile(src, dst string) error {
	from, err := windows.UTF16PtrFromString(src)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
	}
	to, err := windows.UTF16PtrFromString(dst)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
	}
	err = retry(func() error {
		return windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
	}, sharingViolation, time.Sleep, ReplaceDeadline)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
	}
	return nil
}

// sharingViolation reports the errors an open handle on the target causes.
func sharingViolation(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// replaceBlocked reports the errors a replace gets while another process
// holds the target open.
func replaceBlocked(err error) bool { return sharingViolation(err) }

// openBlockedByReplace reports the errors an open for reading gets while
// another process replaces the file: the same as a replace blocked by a
// reader.
func openBlockedByReplace(err error) bool { return sharingViolation(err) }

// SyncDir does nothing on Windows: a directory cannot be flushed there, and
// [WriteFileAtomic]'s replace is already written through.
func SyncDir(dir string) error { return nil }

// syncDirIn does nothing on Windows (see [SyncDir]).
func syncDirIn(*os.Root, string) error { return nil }
