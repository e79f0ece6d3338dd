//go:build !windows

package fsx

import "os"

// openShared opens name for reading; on Unix a reader never blocks a
// rename over the file.
func openShared(name string) (*os.File, error) { return os.OpenFile(name, openRegularFlags, 0) }
