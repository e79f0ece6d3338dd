package memory

import (
	"path/filepath"

	"github.com/agentlineage/lineage/instructions"
)

// ProjectOf is the project folder of cwd as lineage estimates it for
// instructions (the nearest folder with a marker such as .git, else cwd).
func ProjectOf(cfg instructions.RootConfig, cwd, home string) string {
	return filepath.Clean(instructions.EstimateRoot(nil, cfg, cwd, home).Dir)
}

// UserOf names the user whose scope a process sees: USER, else USERNAME
// (Windows), else the home folder.
func UserOf(getenv func(string) string, home string) string {
	for _, v := range []string{"USER", "USERNAME"} {
		if s := getenv(v); s != "" {
			return s
		}
	}
	return home
}
