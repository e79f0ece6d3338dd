package instructions

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Status is what became of one directory of a chain.
type Status string

// The statuses reported by [Explain].
const (
	StatusLoaded         Status = "loaded"
	StatusMissing        Status = "missing"
	StatusMaxFiles       Status = "skipped:max-files"
	StatusMaxBytes       Status = "skipped:max-bytes"
	StatusNotRegular     Status = "not-regular-file"
	StatusUnreadable     Status = "unreadable"
	StatusDuplicate      Status = "duplicate"
	StatusEmpty          Status = "empty"
	StatusOutsideRoot    Status = "outside-root"
	StatusExcluded       Status = "excluded"
	StatusCycle          Status = "cycle"
	StatusImportDepth    Status = "skipped:import-depth"
	StatusScoped         Status = "scoped"
	statusFound          Status = "found" // internal: a regular file, not yet judged
	detailDanglingSymlnk        = "dangling symlink"
)

// dirFile is the outcome of looking for a directory's file.
type dirFile struct {
	path   string
	status Status // statusFound, StatusMissing, StatusNotRegular or StatusUnreadable
	detail string
	info   fs.FileInfo // of the file itself (symlinks followed) when found
}

func (d dirFile) id() (fsx.FileID, bool) { return fsx.IDOf(d.path, d.info) }

func (d dirFile) version() version {
	return version{mtimeNs: d.info.ModTime().UnixNano(), size: d.info.Size()}
}

// findFile tries names in dir in order with one Lstat each (plus one Stat
// for a symlink) and returns the first regular file. When none is regular
// the first skipped name explains why; nothing skipped means missing.
// It never opens anything, so a FIFO cannot block it. gone, if not nil, is
// called with each name tried that is missing or not a regular file.
func findFile(fsys FS, dir string, names []string, gone func(path string)) dirFile {
	skipped := dirFile{status: StatusMissing}
	for _, name := range names {
		p := joinName(dir, name)
		d := statFile(fsys, p)
		if d.status == statusFound {
			return d
		}
		if gone != nil && d.status != StatusUnreadable {
			gone(p)
		}
		if d.status != StatusMissing && skipped.status == StatusMissing {
			skipped = d
		}
	}
	return skipped
}

func statFile(fsys FS, p string) dirFile {
	li, err := fsys.Lstat(p)
	if err != nil {
		return statError(p, err)
	}
	fi := li
	if li.Mode()&fs.ModeSymlink != 0 {
		fi, err = fsys.Stat(p)
		if err != nil {
			if isMissing(err) {
				return dirFile{path: p, status: StatusNotRegular, detail: detailDanglingSymlnk}
			}
			return dirFile{path: p, status: StatusUnreadable, detail: err.Error()}
		}
	}
	if !fi.Mode().IsRegular() {
		return dirFile{path: p, status: StatusNotRegular, detail: fsx.KindOf(fi.Mode())}
	}
	return dirFile{path: p, status: statusFound, info: fi}
}

func statError(p string, err error) dirFile {
	if isMissing(err) {
		return dirFile{path: p, status: StatusMissing}
	}
	return dirFile{path: p, status: StatusUnreadable, detail: err.Error()}
}

func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// version is what change detection compares: a size change with the old
// mtime restored is still a change.
type version struct {
	mtimeNs int64
	size    int64
}

// mtimeMs is the millisecond mtime, rounded down and clamped at 0: the
// seed's schema has mtimeMs nonnegative, so a pre-1970 file reports 0.
// Change detection compares mtimeNs, which keeps the real value.
func (v version) mtimeMs() int64 {
	return max(0, v.mtimeNs/1e6)
}
