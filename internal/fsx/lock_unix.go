//go:build unix

package fsx

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// noFollow makes the lock file's open fail on a symlink planted between
// LockFile's check and its open.
const noFollow = unix.O_NOFOLLOW

// removeWhileHeld: a file open elsewhere can be removed, so the holder
// removes the lock file before it releases the lock.
const removeWhileHeld = true

// tryLock takes an exclusive flock on f without waiting; held reports that
// another open file has it. A call interrupted by a signal (the Go runtime
// sends them to preempt) is made again: taking it for "held" would make
// ProbeLock call a stale lock held.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
