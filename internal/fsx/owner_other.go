//go:build !unix

package fsx

import "os"

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, os.FileInfo) error { return nil }
