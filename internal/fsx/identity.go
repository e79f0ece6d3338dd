package fsx

// FileID identifies a physical file: the same file reached through two paths
// (a symlink, a hard link, a bind mount) has one FileID. On Unix it is the
// device and inode numbers; on Windows the volume serial number and the
// 64-bit file index.
type FileID struct {
	Dev uint64
	Ino uint64
}
