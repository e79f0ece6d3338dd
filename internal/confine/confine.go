package confine

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Roots is a set of allowed directories. The zero value allows nothing.
type Roots struct {
	// dirs are the roots as given (absolute, clean); real their real
	// locations, index for index.
	dirs, real []string
}

// New returns the roots dirs (absolute; duplicates and roots inside
// another root are kept, they do no harm).
func New(dirs ...string) (Roots, error) {
	var r Roots
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return Roots{}, errors.New("allowed root " + d + " is not an absolute path")
		}
		d = filepath.Clean(d)
		r.dirs = append(r.dirs, d)
		r.real = append(r.real, Real(d))
	}
	return r, nil
}

// Dirs are the roots as given.
func (r Roots) Dirs() []string { return append([]string(nil), r.dirs...) }

// Only returns the roots of r that are dir (absolute; cleaned here), with
// the real location r found for it: what New(dir) returns, without
// resolving it again. False when dir is none of r's roots.
func (r Roots) Only(dir string) (Roots, bool) {
	dir = filepath.Clean(dir)
	for i, d := range r.dirs {
		if d == dir {
			return Roots{dirs: []string{d}, real: []string{r.real[i]}}, true
		}
	}
	return Roots{}, false
}

// Check returns nil when path (absolute, cleaned or not) lies inside one of
// the roots after resolving ".." and symlinks, else an [*OutsideError].
func (r Roots) Check(path string) error {
	real := Real(path)
	for _, root := range r.real {
		if fsx.Contains(root, real) {
			return nil
		}
	}
	e := &OutsideError{Path: path, Roots: r.Dirs()}
	if !fsx.Equal(real, filepath.Clean(path)) {
		e.Real = real
	}
	return e
}

// Real is the real location of the absolute path p: symlinks and ".." of
// its existing part resolved the way the OS does, the missing rest appended
// and cleaned.
func Real(p string) string {
	p = filepath.FromSlash(p)
	vol := filepath.VolumeName(p)
	rest := p[len(vol):]
	// Try the whole path, then shorter and shorter existing prefixes.
	cut := len(rest)
	for {
		prefix := vol + rest[:cut]
		if prefix == vol {
			prefix = vol + string(filepath.Separator)
		}
		// Any failure (missing, not a directory, a loop, no permission):
		// resolve less and append the rest lexically.
		if real, err := filepath.EvalSymlinks(prefix); err == nil {
			return filepath.Clean(real + string(filepath.Separator) + rest[cut:])
		}
		i := strings.LastIndexAny(rest[:cut], `/`+string(filepath.Separator))
		if i <= 0 {
			return filepath.Clean(p)
		}
		cut = i
	}
}

// OutsideError is a path outside the allowed roots.
type OutsideError struct {
	// Path is the path as asked for; Real where it leads when that differs
	// (through a symlink or ".."), else "".
	Path, Real string
	// Roots are the allowed roots.
	Roots []string
}

func (e *OutsideError) Error() string {
	where := ""
	if e.Real != "" {
		where = " (it leads to " + e.Real + ")"
	}
	roots := "none"
	if len(e.Roots) > 0 {
		roots = strings.Join(e.Roots, ", ")
	}
	return e.Path + where + " is outside the allowed roots: " + roots
}

// ErrOutside matches every [*OutsideError] with errors.Is.
var ErrOutside = errors.New("outside the allowed roots")

// Is makes errors.Is(err, ErrOutside) true.
func (e *OutsideError) Is(target error) bool { return target == ErrOutside }
