package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// mcpStateDir is the directory of the store (where a stateless server keeps
// its shared instruction session): the directory of an SQLite store, else
// .lineage in the working directory.
func mcpStateDir(env *Env, f *mcpFlags, cwd string) (string, error) {
	store := f.store
	if store == "" {
		store = strings.TrimSpace(env.Getenv("LINEAGE_STORE"))
	}
	switch {
	case strings.HasPrefix(store, "postgres://"), strings.HasPrefix(store, "postgresql://"):
		return filepath.Join(cwd, ".lineage"), nil
	case store != "":
		return filepath.Dir(fsx.Abs(env.Dir, strings.TrimPrefix(store, "sqlite:"))), nil
	}
	dirs := fsx.Ancestors(cwd)
	for i := len(dirs) - 1; i >= 0; i-- {
		dir := dirs[i]
		if fi, err := os.Stat(filepath.Join(dir, ".lineage", "lineage.db")); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, ".lineage"), nil
		}
	}
	return filepath.Join(cwd, ".lineage"), nil
}
