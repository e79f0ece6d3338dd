package fsx

import (
	"errors"
	"io/fs"
	"syscall"
)

// stampOf is path's state as lstat (and stat for a link) say, read into a
// stack buffer: a trail is checked on every reuse, so without the
// allocations os.Lstat makes.
func stampOf(path string) stamp {
	var st syscall.Stat_t
	if !stat(syscall.Lstat, path, &st) {
		return stamp{}
	}
	s := stamp{self: infoOfStat(&st)}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		var target syscall.Stat_t
		if stat(syscall.Stat, path, &target) {
			s.target = infoOfStat(&target)
		}
	}
	return s
}

// stat calls fn, again when interrupted; false on any other error (the
// path is recorded as missing).
func stat(fn func(string, *syscall.Stat_t) error, path string, st *syscall.Stat_t) bool {
	for {
		err := fn(path, st)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

// infoOfStat keeps the raw mode bits (compared, never shown) and the
// change time, which no write leaves as it was and none can set back.
func infoOfStat(st *syscall.Stat_t) info {
	return info{exists: true, mode: fs.FileMode(st.Mode), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		id: FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}} //nolint:unconvert // widths differ by platform
}
