// Package fsx holds the filesystem guarantees lineage relies on wherever two
// processes could meet, on Linux, macOS and Windows: atomic file replacement
// (temporary file in the same directory, fsync, rename, fsync of the
// directory; MoveFileEx with write-through on Windows), exclusive file locks
// (flock; LockFileEx) and physical file identity (device + inode; volume
// serial + file index).
//
// It also holds the path rules of each OS as a value, [Rules]: separators,
// case folding (macOS and Windows volumes are case-insensitive by default),
// drive letters and UNC shares. Containment is decided by whole components
// under those rules, so "/a/libs/x" does not contain "/a/libs/xy", on macOS
// "/Proj" contains "/proj/src", and on Windows `C:\a` never contains a path
// on D:. The package-level functions apply the host's rules ([Host]); tests
// run every OS's rules on any host. The user's home, config and state
// directories follow the same rules ([Rules.HomeDir], [Rules.ConfigDir],
// [Rules.StateDir]).
//
// It also guards against hostile trees: [OpenRegular] and [ReadRegular]
// open only regular files, checking the type before the open and opening
// without blocking, so a FIFO or a device named like a document never hangs
// or feeds a caller; [LineSafe] quotes a name that could otherwise add or
// break a line of text output. A killed writer's temporary files are removed
// by the next writer.
package fsx
