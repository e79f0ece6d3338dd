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
func LockFile(ctx context.Context, path string) (*Lock, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lock %s: refusing a %s, not a regular file", path, KindOf(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
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
			return &Lock{f: f}, nil
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

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
