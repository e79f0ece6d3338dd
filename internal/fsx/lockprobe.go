package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// LockState is what [ProbeLock] found at a lock file's path.
type LockState int

const (
	// LockAbsent: no lock file.
	LockAbsent LockState = iota
	// LockHeld: a live process holds (or waits for) the lock.
	LockHeld
	// LockStale: the file is there but nobody holds it: its holder died
	// before Unlock (SIGKILL, power loss). It blocks nothing — the next
	// [LockFile] takes it and removes it — but it shows in `git status`.
	LockStale
)

// ProbeLock reports whether the lock file at path is held, stale or
// absent, without creating it and without waiting: it tries the lock once
// and releases it at once. A path that is not a regular file is an error.
func ProbeLock(path string) (LockState, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return LockAbsent, nil
	}
	if err != nil {
		return LockAbsent, err
	}
	if !fi.Mode().IsRegular() {
		return LockAbsent, fmt.Errorf("lock %s: a %s, not a regular file", path, KindOf(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return LockAbsent, nil // its holder removed it meanwhile
	}
	if err != nil {
		return LockHeld, nil // Windows: a holder's open refuses ours
	}
	defer f.Close()
	held, err := tryLock(f)
	if err != nil {
		return LockAbsent, fmt.Errorf("lock %s: %w", path, err)
	}
	if held {
		return LockHeld, nil
	}
	unlock(f)
	return LockStale, nil
}
