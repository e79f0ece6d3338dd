package fsx

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// WriteFileAtomic replaces path with data so that a reader, or a crash, sees
// either the old file or the new one, never a torn one. The data is written
// to a temporary file in the same directory, synced, renamed over path, and
// the directory is synced so the rename itself is durable (on Windows the
// rename is MoveFileEx with write-through, retried while another process
// holds path open). On any error the temporary file is removed and path is
// left as it was.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	return writeAtomic(path, data, perm, nil)
}

// WriteFileAtomicLike is [WriteFileAtomic] for replacing an existing file
// whose Stat is like: the new file gets its permission bits and, on Unix,
// its owner and group. When the owner cannot be kept (another user's file)
// nothing is written and the error says so.
func WriteFileAtomicLike(path string, data []byte, like os.FileInfo) error {
	return writeAtomic(path, data, like.Mode().Perm(), func(tmp *os.File) error { return keepOwner(tmp, like) })
}

func writeAtomic(path string, data []byte, perm os.FileMode, prepare func(*os.File) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if prepare != nil {
		if err = prepare(tmp); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = replaceFile(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(dir)
}

// ReplaceDeadline bounds how long a replace blocked by another process's
// open handle (Windows: a reader holding the file without FILE_SHARE_DELETE)
// is retried: long enough for a concurrent reader of a large state or
// agency file to finish, short enough that a file held open for good fails
// the write with its error instead of hanging it.
const ReplaceDeadline = 5 * time.Second

// ReadRetryDeadline bounds how long an open for reading is retried while
// another process replaces the file (Windows reports a sharing violation,
// or access denied while the old file is pending delete, for the instant of
// the replace).
const ReadRetryDeadline = 2 * time.Second

// retry runs op until it succeeds, fails with an error transient does not
// accept, or its sleeps add up to deadline, sleeping a little longer each
// time (1 ms doubling to 100 ms).
func retry(op func() error, transient func(error) bool, sleep func(time.Duration), deadline time.Duration) error {
	delay := time.Millisecond
	var slept time.Duration
	for {
		err := op()
		if err == nil || !transient(err) || slept >= deadline {
			return err
		}
		d := min(delay, deadline-slept)
		sleep(d)
		slept += d
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// LockedTempSuffix names the temporary file of [WriteFileLocked]: path +
// this suffix, beside path.
const LockedTempSuffix = ".tmp-locked"

// WriteFileLocked is [WriteFileAtomic] for a file whose writers all hold one
// lock: the temporary file has a fixed name (path + [LockedTempSuffix]),
// created or truncated, so what a killed writer left is reused by the next
// one instead of piling up, and nothing ever needs to list the directory to
// find it (a state file beside 50,000 other files costs the same as one
// alone). Call it only while holding the lock.
func WriteFileLocked(path string, data []byte, perm os.FileMode) (err error) {
	tmpName := path + LockedTempSuffix
	tmp, err := os.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if err = fillTemp(tmp, path, data, perm); err != nil {
		return err
	}
	if err = replaceFile(tmpName, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// fillTemp writes data into the temporary file of an atomic write, gives
// it perm, syncs and closes it; errors name path, the file being written.
// The caller removes tmp when this fails (tmp may still be open: closing it
// twice is harmless).
func fillTemp(tmp *os.File, path string, data []byte, perm os.FileMode) error {
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
