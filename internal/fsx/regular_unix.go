//go:build unix

package fsx

import (
	"errors"
	"os"
	"syscall"
)

// openRegularFlags open without blocking on a FIFO and without making a
// terminal the controlling one.
const openRegularFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// IsSymlinkLoop reports whether err comes from a chain of symbolic links
// that never ends.
func IsSymlinkLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
