package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Folder is one skill folder that exists.
type Folder struct {
	Dir   string `json:"dir"`
	Kind  string `json:"kind"` // ".claude/skills", … or "extra"
	Scope Scope  `json:"scope"`

	base *base
	rel  string   // Dir relative to base.dir, slash-separated
	sub  *os.Root // Dir itself, open while it is walked
	top  *os.File // Dir's directory, open while it is walked
}

// base is one directory opened as an os.Root, which every file under it is
// opened through.
type base struct {
	dir  string
	root *os.Root
	// trail notes the paths looked at under dir (nil: none).
	trail *fsx.Trail
}

// stat is Stat of rel (relative to the folder) through the folder's own
// root, and through the wider root it lies in when that says the path
// leaves the folder: a link from .claude/skills into .agents/skills stays
// inside the project. Asking the folder first is only cheaper (one
// directory to walk instead of the whole path), never wider.
func (f Folder) stat(rel string) (fs.FileInfo, error) {
	if f.base.trail != nil {
		f.base.trail.Note(f.abs(rel))
	}
	fi, err := f.sub.Stat(rel)
	if err != nil && escapes(err) {
		return f.base.root.Stat(path.Join(f.rel, rel))
	}
	return fi, err
}

func (f Folder) read(rel string, limit int64) ([]byte, fs.FileInfo, error) {
	if f.base.trail != nil {
		f.base.trail.Note(f.abs(rel))
	}
	data, fi, err := fsx.ReadRegularIn(f.sub, rel, limit)
	if err != nil && escapes(err) {
		return fsx.ReadRegularIn(f.base.root, path.Join(f.rel, rel), limit)
	}
	return data, fi, err
}

// holds reports whether fi is the directory rel (relative to the folder)
// or one of its ancestors up to the folder's base: a symbolic link there
// leads back up, a loop.
func (f Folder) holds(rel string, fi fs.FileInfo) bool {
	for p := path.Join(f.rel, rel); ; p = path.Dir(p) {
		if st, err := f.base.root.Stat(p); err == nil && os.SameFile(st, fi) {
			return true
		}
		if p == "." || p == "/" {
			return false
		}
	}
}

func (f Folder) abs(rel string) string { return f.base.abs(joinName(f.rel, rel)) }

// joinName is path.Join(dir, rel) for a clean slash-separated dir ("."
// at the top) and a clean relative rel (names from a directory listing,
// joined): the listing's hot path, without Join's cleaning.
func joinName(dir, rel string) string {
	switch {
	case rel == "." || rel == "":
		return dir
	case dir == "." || dir == "":
		return rel
	}
	return dir + "/" + rel
}

func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// abs is the absolute path of rel (slash-separated, relative to b.dir).
func (b *base) abs(rel string) string {
	if rel == "." || rel == "" {
		return b.dir
	}
	return filepath.Join(b.dir, filepath.FromSlash(rel))
}

// describe words an error of a lookup under the root dir.
func describe(err error, dir string) string {
	var nr *fsx.NotRegularError
	switch {
	case errors.As(err, &nr):
		return fmt.Sprintf("is a %s, not a regular file: skipped", nr.Kind)
	case errors.Is(err, fsx.ErrTooLarge):
		msg := err.Error()
		if i := strings.Index(msg, fsx.ErrTooLarge.Error()); i >= 0 {
			msg = msg[i:]
		}
		return msg + ": skipped"
	case strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Sprintf("a symbolic link leads outside %s: not followed", fsx.LineSafe(dir))
	case fsx.IsSymlinkLoop(err):
		return "a symbolic link loop: not followed"
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist (a dangling symbolic link?)"
	}
	return unwrapPath(err).Error()
}

// unwrapPath drops the *PathError's operation and path, which the message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
