// Package fsx holds the filesystem guarantees lineage relies on wherever two
// processes could meet: atomic file replacement (temporary file in the same
// directory, fsync, rename, fsync of the directory) and the removal of a
// killed writer's temporary files, exclusive advisory file locks,
// component-wise path containment and physical file identity
// (device + inode).
//
// It also guards against hostile trees: [OpenRegular] and [ReadRegular]
// open only regular files, checking the type before the open and opening
// without blocking, so a FIFO or a device named like a document never hangs
// or feeds a caller; [LineSafe] quotes a name that could otherwise add or
// break a line of text output.
package fsx
