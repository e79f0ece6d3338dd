package instructions

import (
	"io"
	"io/fs"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Traced is fsys (nil: [OS]) noting on trail every path looked at
// through it before passing the call on ([fsx.Trail]), so a result
// computed through it can be reused while the trail is fresh. It keeps
// the optional interfaces fsys has ([RootOpener], [DirReader]) and only
// those: the package behaves as it does on fsys itself.
func Traced(fsys FS, trail *fsx.Trail) FS {
	if fsys == nil {
		fsys = OS
	}
	base := traced{fsys, trail}
	ro, isRO := fsys.(RootOpener)
	dr, isDR := fsys.(DirReader)
	switch {
	case isRO && isDR:
		return struct {
			traced
			tracedOpener
			tracedLister
		}{base, tracedOpener{ro, trail}, tracedLister{dr, trail}}
	case isRO:
		return struct {
			traced
			tracedOpener
		}{base, tracedOpener{ro, trail}}
	case isDR:
		return struct {
			traced
			tracedLister
		}{base, tracedLister{dr, trail}}
	}
	return base
}

type traced struct {
	fs    FS
	trail *fsx.Trail
}

// notesPaths marks a traced FS: what is looked at through it is its
// trail, so nothing is left unlooked at (see absentFolders).
func (traced) notesPaths() {}

func (t traced) Stat(name string) (fs.FileInfo, error) {
	t.trail.Note(name)
	return t.fs.Stat(name)
}

func (t traced) Lstat(name string) (fs.FileInfo, error) {
	t.trail.Note(name)
	return t.fs.Lstat(name)
}

func (t traced) OpenRegular(name string) (io.ReadCloser, error) {
	t.trail.Note(name)
	return t.fs.OpenRegular(name)
}

type tracedOpener struct {
	ro    RootOpener
	trail *fsx.Trail
}

func (t tracedOpener) OpenRegularIn(dir, name string) (io.ReadCloser, error) {
	t.trail.Note(dir)
	t.trail.Note(filepath.Join(dir, name))
	return t.ro.OpenRegularIn(dir, name)
}

type tracedLister struct {
	dr    DirReader
	trail *fsx.Trail
}

func (t tracedLister) ReadDir(name string) ([]fs.DirEntry, error) {
	t.trail.Note(name)
	return t.dr.ReadDir(name)
}
