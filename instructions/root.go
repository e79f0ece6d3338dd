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
	for dir := cwd; ; {
		for _, m := range cfg.Markers {
			if m == globalSettingsDir && home != "" && fsx.Equal(dir, home) {
				continue
			}
			if _, err := fsys.Lstat(filepath.Join(dir, m)); err == nil {
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
