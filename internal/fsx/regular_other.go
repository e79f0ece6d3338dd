//go:build !unix

package fsx

import "os"

// openRegularFlags: without FIFOs in the filesystem there is nothing an
// open could block on.
const openRegularFlags = os.O_RDONLY

// IsSymlinkLoop reports whether err comes from a chain of symbolic links
// that never ends; the platform does not report it distinctly.
func IsSymlinkLoop(error) bool { return false }
