//go:build !unix && !windows

package fsx

import "io/fs"

// IDOf reports no identity where the platform exposes none.
func IDOf(path string, fi fs.FileInfo) (id FileID, ok bool) { return FileID{}, false }
