package instructions

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// RootOpener is what an [FS] implements to open a file through a directory
// it must not leave: name is relative to dir, and neither ".." nor a
// symlink may take the open outside dir (the OS filesystem uses
// [os.Root]). Imports are opened this way; an FS without it opens them by
// their path after a check of the logical path only.
type RootOpener interface {
	OpenRegularIn(dir, name string) (io.ReadCloser, error)
}

// OpenRegularIn opens name inside dir through an os.Root.
func (osFS) OpenRegularIn(dir, name string) (io.ReadCloser, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, _, err := fsx.OpenRegularIn(root, name)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return nil, errEscapes
		}
		return nil, err
	}
	return f, nil
}

// errEscapes: an import whose real path (symlinks resolved) leaves the
// allowed roots.
var errEscapes = errors.New("its real path is outside the project root and imports.allowedRoots")

// openConfined opens p through the first allowed root holding its logical
// path.
func openConfined(fsys FS, p string, allowed []string) (io.ReadCloser, error) {
	ro, ok := fsys.(RootOpener)
	if !ok {
		return fsys.OpenRegular(p)
	}
	var last error = errEscapes
	for _, dir := range allowed {
		if !within(dir, p) {
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			continue
		}
		r, err := ro.OpenRegularIn(dir, rel)
		if err == nil {
			return r, nil
		}
		last = err
	}
	return nil, last
}

// allowedRoots are the directories imports may reach: the project root
// and imports.allowedRoots ("~/" expanded).
func allowedRoots(cfg Config, root, home string) []string {
	out := []string{root}
	for _, a := range cfg.Imports.AllowedRoots {
		if p, ok := userPath(a, root, home); ok {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

func withinAny(dirs []string, p string) bool {
	for _, d := range dirs {
		if within(d, p) {
			return true
		}
	}
	return false
}

// compileExcludes compiles exclude globs: those starting with "/" or "~/"
// (or, on Windows, a volume such as C:/) match absolute paths, others
// paths relative to the root.
func compileExcludes(patterns []string, home string) []glob {
	var out []glob
	for _, p := range patterns {
		text := p
		if strings.HasPrefix(p, "~/") && home != "" {
			p = filepath.ToSlash(home) + p[1:]
		}
		if runtime.GOOS == "windows" {
			// A backslash is the separator on Windows (as in filepath.Match),
			// never an escape: C:\repo\docs\*.md is C:/repo/docs/*.md.
			p = filepath.ToSlash(p)
		}
		g, err := compileGlob(p)
		if err != nil {
			continue // validated with the configuration
		}
		g.text = text
		// Absolute: rooted, or with a volume (C:/…, //server/share/…), as
		// "~/" is on Windows once the home directory is put in.
		g.abs = strings.HasPrefix(p, "/") || filepath.VolumeName(filepath.FromSlash(p)) != ""
		out = append(out, g)
	}
	return out
}

// matchExcludes returns the first glob p matches, or "".
func matchExcludes(globs []glob, root, p string) string {
	if len(globs) == 0 {
		return ""
	}
	abs := strings.TrimPrefix(filepath.ToSlash(p), "/")
	rel, inRoot := relSlash(root, p)
	for _, g := range globs {
		if g.abs && g.match(abs) || !g.abs && inRoot && g.match(rel) {
			return g.text
		}
	}
	return ""
}
