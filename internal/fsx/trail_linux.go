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
	if !stat(false, path, &st) {
		return stamp{}
	}
	s := stamp{self: infoOfStat(&st)}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		var target syscall.Stat_t
		if stat(true, path, &target) {
			s.target = infoOfStat(&target)
		}
	}
	return s
}

// stat calls lstat (or stat when follow), again when interrupted; false on
// any other error (the path is recorded as missing). The calls are direct
// (not through a function value) so that st stays on the caller's stack.
func stat(follow bool, path string, st *syscall.Stat_t) bool {
	for {
		var err error
		if follow {
			err = syscall.Stat(path, st)
		} else {
			err = syscall.Lstat(path, st)
		}
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
