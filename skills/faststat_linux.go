//go:build linux

package skills

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fastStat stats name (one level below dir, e.g. "pdf/SKILL.md") with a
// single fstatat(2) relative to the open directory, not following a
// symbolic link at the end. It answers only for a regular file and
// otherwise says !ok, and the caller asks the os.Root instead (which
// costs an open, a stat and a close per call: a third of a listing of
// 200 cached skills). The caller uses it only for a child that its
// directory listing reported as a real directory, never a link, and only
// to decide whether a cached entry is current: every byte read still
// comes through the os.Root.
func fastStat(dir *os.File, name string) (fs.FileInfo, bool) {
	if dir == nil {
		return nil, false
	}
	sc, err := dir.SyscallConn()
	if err != nil {
		return nil, false
	}
	var st unix.Stat_t
	var serr error
	if err := sc.Control(func(fd uintptr) {
		for {
			serr = unix.Fstatat(int(fd), name, &st, unix.AT_SYMLINK_NOFOLLOW)
			if serr != unix.EINTR {
				return
			}
		}
	}); err != nil || serr != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	return &statInfo{name: name, st: st, sys: syscall.Stat_t{Dev: st.Dev, Ino: st.Ino, Mode: st.Mode, Size: st.Size}}, true
}

// statInfo is the fs.FileInfo of a regular file's Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
	sys  syscall.Stat_t // what Sys returns, made with it (one allocation)
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) Mode() fs.FileMode  { return fs.FileMode(s.st.Mode & 0o777) }
func (s *statInfo) ModTime() time.Time { return time.Unix(int64(s.st.Mtim.Sec), int64(s.st.Mtim.Nsec)) } // int32 on 32-bit Linux
func (s *statInfo) IsDir() bool        { return false }

// Sys is a syscall.Stat_t, as os.Stat's, so fsx.IDOf reads the identity.
func (s *statInfo) Sys() any { return &s.sys }

// readDir lists dir (a directory opened through an os.Root) by the types
// getdents(2) reports. An os.File opened in a Root stats every entry when
// it is listed (os cannot trust a lazy lstat by name there); a duplicate
// of the same descriptor, which is not marked as in a Root, lists with the
// types the kernel gives: the directory is still the one the Root opened.
func readDir(dir *os.File) ([]fs.DirEntry, error) {
	sc, err := dir.SyscallConn()
	if err != nil {
		return dir.ReadDir(-1)
	}
	nfd, derr := -1, error(nil)
	if err := sc.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return dir.ReadDir(-1)
	}
	f := os.NewFile(uintptr(nfd), dir.Name())
	defer f.Close()
	return f.ReadDir(-1)
}
