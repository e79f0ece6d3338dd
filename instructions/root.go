package instructions

import (
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Root is the estimated project root.
type Root struct {
	Dir string
	// Source is "override", "marker:<name>" or "cwd".
	Source string
}

// globalSettingsDir is Codelia's settings folder: project-local anywhere but
// directly in the home directory, where it holds the user's global settings
// and must not make home the root of every unmarked project under it.
const globalSettingsDir = ".codelia"

// EstimateRoot finds the root for cwd (clean and absolute; symlinks in it
// are not resolved): the override if set; else the first directory from cwd
// upwards containing any marker (a file or a directory, so a worktree's
// ".git" file counts); else cwd. With StopAtFsRoot false the climb ends at
// home after checking it; a cwd outside home still climbs to "/". Home's
// own ".codelia" is not a marker (see globalSettingsDir).
func EstimateRoot(fsys FS, cfg RootConfig, cwd, home string) Root {
	fsys = orOS(fsys)
	cwd = filepath.Clean(cwd)
	if cfg.ProjectRootOverride != "" {
		return Root{Dir: fsx.Abs(cwd, cfg.ProjectRootOverride), Source: "override"}
	}
	if home != "" {
		home = filepath.Clean(home)
	}
	isHome := homeTest(fsys, home)
	for dir := cwd; ; {
		for _, m := range cfg.Markers {
			if _, err := fsys.Lstat(filepath.Join(dir, m)); err == nil {
				if m == globalSettingsDir && isHome(dir) {
					continue
				}
				return Root{Dir: dir, Source: "marker:" + m}
			}
		}
		if !cfg.StopAtFsRoot && home != "" && fsx.Equal(dir, home) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return Root{Dir: cwd, Source: "cwd"}
}

// homeTest returns a test for "dir is the home directory": by name, and —
// when the names differ — by identity, so a $HOME that is a symlink (or a
// cwd reached through the physical path) is still recognized. Home is
// stat'ed once, and only when a directory holds a ".codelia".
func homeTest(fsys FS, home string) func(dir string) bool {
	if home == "" {
		return func(string) bool { return false }
	}
	var homeID fsx.FileID
	var looked, hasID bool
	return func(dir string) bool {
		if fsx.Equal(dir, home) {
			return true
		}
		if !looked {
			looked = true
			if fi, err := fsys.Stat(home); err == nil {
				homeID, hasID = fsx.IDOf(home, fi)
			}
		}
		if !hasID {
			return false
		}
		fi, err := fsys.Stat(dir)
		if err != nil {
			return false
		}
		id, ok := fsx.IDOf(dir, fi)
		return ok && id == homeID
	}
}

// chainDirs returns the directories from root down to dir, both included,
// or nil when dir is not inside root. Both are clean absolute paths; the
// result shares dir's memory, as this runs once per resolve.
func chainDirs(root, dir string) []string { return fsx.Between(root, dir) }

// within reports whether the clean absolute path p is root or inside it,
// comparing whole components the way the OS does.
func within(root, p string) bool { return fsx.Contains(root, p) }

// joinName joins a clean absolute directory and a plain file name without
// filepath.Join's cleaning, which shows in a resolve's profile.
func joinName(dir, name string) string {
	if os.IsPathSeparator(dir[len(dir)-1]) { // "/" or `C:\`
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}
