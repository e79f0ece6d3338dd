//go:build !windows

package fsx

import (
	"fmt"
	"os"
)

// openBlockedByReplace: rename(2) never blocks an open, so no open error
// is transient.
func openBlockedByReplace(error) bool { return false }

// replaceBlocked: rename(2) never waits for readers, so no error is
// transient.
func replaceBlocked(error) bool { return false }

// replaceFile renames src over dst; rename(2) is atomic.
func replaceFile(src, dst string) error { return os.Rename(src, dst) }

// SyncDir fsyncs a directory so that renames and creations in it are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// syncDirIn fsyncs the directory dir inside root.
func syncDirIn(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", rootPath(root, dir), err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", rootPath(root, dir), err)
	}
	return nil
}
