package hookcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

// installedConfig checks the --config file an install names and returns
// the path the installed command carries: absolute, except in a project
// file, which is committed and read by every clone at its own path: there
// the path is relative to the project directory (with '/' separators),
// as the command's program is a name found on PATH. A file outside the
// project cannot be shared with it and is refused.
func installedConfig(env *clienv.Env, config, scope, project string) (string, error) {
	abs := fsx.Abs(env.Dir, config)
	data, err := fsx.ReadRegular(abs, instructions.MaxConfigBytes)
	if err == nil {
		_, err = instructions.ParseConfig(data)
	}
	if err != nil {
		return "", clienv.UsageError("--config %s: %v", abs, err)
	}
	if scope != hooks.ScopeProject {
		return abs, nil
	}
	rel, ok := inside(project, abs)
	if !ok {
		// The same place reached through a symbolic link (macOS's /var
		// is /private/var) is inside all the same.
		rp, err1 := filepath.EvalSymlinks(project)
		ra, err2 := filepath.EvalSymlinks(abs)
		if err1 == nil && err2 == nil {
			rel, ok = inside(rp, ra)
		}
	}
	if !ok {
		return "", clienv.UsageError("--config %s is outside the project %s: a project file is shared by every clone, so the config it names must be in the project (or install with --scope user or local)", abs, project)
	}
	return filepath.ToSlash(rel), nil
}

// inside is p relative to dir when p lies inside dir.
func inside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// hookConfigPath is where the hook reads its --config file. An absolute
// path is itself. A relative one was written by a project-scope install
// relative to the project directory, and the harness may run the hook in a
// folder below it: it is looked for in the project directory the harness
// names (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR), then in the hook's
// working directory and each one above it, then in the event's directory
// and each one above it; the first that holds it wins.
func hookConfigPath(env *clienv.Env, h *hooks.Harness, config, eventCwd string) (string, error) {
	if filepath.IsAbs(config) {
		return config, nil
	}
	var dirs []string
	if v := h.ProjectDirVar(); v != "" {
		if d, ok := env.Host().Lookup(v); ok && filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	for _, start := range []string{env.Dir, eventCwd} {
		for d := start; filepath.IsAbs(d); d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, filepath.FromSlash(config))
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("read config: %s: not in the project directory, %s or a folder above it", config, env.Dir)
}
