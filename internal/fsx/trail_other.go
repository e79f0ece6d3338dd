//go:build !linux

package fsx

import (
	"io/fs"
	"os"
)

// stampOf is path's state as os.Lstat (and os.Stat for a link) say.
func stampOf(path string) stamp {
	fi, err := os.Lstat(path)
	s := stamp{self: infoOf(path, fi, err)}
	if s.self.exists && fi.Mode()&fs.ModeSymlink != 0 {
		ti, err := os.Stat(path)
		s.target = infoOf(path, ti, err)
	}
	return s
}

func infoOf(path string, fi fs.FileInfo, err error) info {
	if err != nil {
		return info{}
	}
	i := info{exists: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	i.id, _ = IDOf(path, fi)
	return i
}
