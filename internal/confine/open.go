package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
)

// OpenRegular opens the regular file at path (absolute) for reading
// through the allowed root that holds it ([os.Root]): every component is
// resolved inside that root, so a symbolic link swapped in at any moment —
// the file itself, or a directory above it — cannot lead the open outside,
// whatever [Roots.Check] said a moment earlier. The root is the one path
// lies in as written, else the one its real location lies in. A path in
// no root, or one whose open would leave the root, is an [*OutsideError]
// (inside an [fs.PathError]); anything but a regular file is refused
// without blocking, as [fsx.OpenRegular] does.
func (r Roots) OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	path = filepath.Clean(path)
	dir, rel, ok := r.holder(path)
	if !ok {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: r.Check(path)}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	f, fi, err := fsx.OpenRegularIn(root, rel)
	if err != nil && escapes(err) {
		e := &OutsideError{Path: path, Roots: r.Dirs()}
		if real := Real(path); !fsx.Equal(real, path) {
			e.Real = real
		}
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: e}
	}
	if err != nil {
		return nil, nil, err
	}
	return f, fi, nil
}

// OpenDir opens the directory dir (absolute) through the allowed root that
// holds it, as [Roots.OpenRegular] opens a file: the returned root stays
// on the directory it opened, whatever is swapped in afterwards. The
// caller closes it.
func (r Roots) OpenDir(dir string) (*os.Root, error) {
	dir = filepath.Clean(dir)
	base, rel, ok := r.holder(dir)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: r.Check(dir)}
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	d, err := fsx.OpenDirIn(root, rel, false)
	if err != nil && escapes(err) {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: &OutsideError{Path: dir, Roots: r.Dirs()}}
	}
	return d, err
}

// holder is the root directory to open path through and path relative to
// it: the first root path lies in as written, else the first whose real
// location holds path's real location.
func (r Roots) holder(path string) (dir, rel string, ok bool) {
	for _, d := range r.dirs {
		if fsx.Contains(d, path) {
			if rel, err := filepath.Rel(d, path); err == nil {
				return d, rel, true
			}
		}
	}
	real := Real(path)
	for _, d := range r.real {
		if fsx.Contains(d, real) {
			if rel, err := filepath.Rel(d, real); err == nil {
				return d, rel, true
			}
		}
	}
	return "", "", false
}

// escapes reports whether err is an [os.Root] refusing a name that leads
// outside it. The os package does not export that error; its text is
// fixed ("path escapes from parent").
func escapes(err error) bool {
	for err != nil {
		if err.Error() == "path escapes from parent" {
			return true
		}
		err = errors.Unwrap(err)
	}
	return false
}
