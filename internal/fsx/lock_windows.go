//go:build windows

package fsx

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// noFollow is zero: creating a symlink needs a privilege on Windows, and
// LockFile's Lstat check refuses an existing one.
const noFollow = 0

// removeWhileHeld is false: Go opens files without FILE_SHARE_DELETE, so a
// removal succeeds only once no process has the lock file open, that is,
// when nobody holds or waits for the lock; Unlock removes it after closing.
const removeWhileHeld = false

// lockAll locks every byte: like flock, the whole file is the lock.
const lockAll = ^uint32(0)

// tryLock takes an exclusive LockFileEx lock on f without waiting; held
// reports that another handle has it.
func tryLock(f *os.File) (held bool, err error) {
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, lockAll, lockAll, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, lockAll, lockAll, new(windows.Overlapped))
}
