//go:build !linux

package skills

import (
	"io/fs"
	"os"
)

// fastStat has no fast path here: the caller asks the os.Root.
func fastStat(*os.File, string) (fs.FileInfo, bool) { return nil, false }

// readDir lists dir.
func readDir(dir *os.File) ([]fs.DirEntry, error) { return dir.ReadDir(-1) }
