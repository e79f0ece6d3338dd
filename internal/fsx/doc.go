// Package fsx holds the filesystem guarantees lineage relies on wherever two
// processes could meet: atomic file replacement (temporary file in the same
// directory, fsync, rename, fsync of the directory), exclusive advisory file
// locks, component-wise path containment and physical file identity
// (device + inode).
package fsx
