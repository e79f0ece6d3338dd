package fsx

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Lock is a held exclusive lock on a lock file.
type Lock struct {
	f *os.File
	// name is the lock file's name for ops: a path, or a name inside a
	// root ([LockFileIn]).
	ops  dirOps
	name string
}

// LockFile takes an exclusive lock on path, creating the file if needed, and
// blocks until it is free or ctx ends. The lock belongs to the open file
// (flock on Unix, LockFileEx on Windows): it is released by Unlock, or by the
// OS when the process dies, so a crashed holder never leaves a stale lock
// behind. Use a dedicated lock file (for example "<file>.lock") rather than a
// file that is replaced by rename, since a rename swaps the file under the
// lock, and Windows locks are mandatory: nobody else may read a locked file.
//
// A lock file that exists as anything but a regular file (a symlink, a FIFO,
// a directory) is refused: following a planted symlink would create or lock
// a file wherever it points.
//
// The lock file exists only while someone holds or waits for the lock:
// Unlock removes it, so no lock file is left in a tree that is committed.
// Removal cannot let two holders in: the holder removes the file before it
// releases the lock, and a waiter that then gets the lock finds its open
// file no longer at path and starts over with a new file (the lock-unlink
// protocol). A holder killed before Unlock leaves the file; the next holder
// removes it.
func LockFile(ctx context.Context, path string) (*Lock, error) {
	for {
		l, err := lockOnce(ctx, hostOps{}, path, path)
		if err != nil || l != nil {
			return l, err
		}
	}
}

// lockOnce takes the lock on the file now at name (shown as path); it
// returns nil, nil when that file was removed (or replaced) by its previous
// holder while this process waited, so the caller tries again.
func lockOnce(ctx context.Context, ops dirOps, name, path string) (*Lock, error) {
	if fi, err := ops.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lock %s: refusing a %s, not a regular file", path, KindOf(fi.Mode()))
	}
	// On Windows the previous holder's removal of the file (Unlock) holds
	// it open for a moment, and an open meanwhile fails with a sharing
	// violation: that open is tried again, as a read during a replace is.
	var f *os.File
	err := retry(func() (err error) {
		f, err = ops.OpenFile(name, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
		return err
	}, openBlockedByReplace, time.Sleep, ReplaceDeadline)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("refusing a %s, not a regular file", KindOf(fi.Mode()))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	delay := time.Millisecond
	for {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !held {
			if !stillAt(ops, f, name) {
				unlock(f)
				f.Close()
				return nil, nil
			}
			return &Lock{f: f, ops: ops, name: name}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(delay):
		}
		if delay < 50*time.Millisecond {
			delay *= 2
		}
	}
}

// stillAt reports whether the open file f is the file at name.
func stillAt(ops dirOps, f *os.File, name string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := ops.Lstat(name)
	return err == nil && os.SameFile(held, now)
}

// Unlock removes the lock file and releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	if removeWhileHeld {
		l.ops.Remove(l.name) // a waiter that gets the lock next sees it gone
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if !removeWhileHeld {
		l.ops.Remove(l.name) // fails while anyone else has the file open: it stays theirs
	}
	l.f = nil
	return err
}
