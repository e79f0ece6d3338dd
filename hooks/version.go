package hooks

import (
	"path/filepath"
	"strconv"
	"strings"
)

// harnessVersion finds h's version without running it: the package.json
// of the npm package its program on PATH belongs to, or a version-named
// directory on the program's real path (Claude Code's native installs keep
// versions/<version>). LINEAGE_<HARNESS>_VERSION overrides both.
func harnessVersion(h *Harness, env Env) string {
	if v := env.get("LINEAGE_" + strings.ToUpper(h.Name) + "_VERSION"); v != "" {
		return v
	}
	path := env.lookPath(h.Name)
	if path == "" {
		return ""
	}
	return versionBeside(h, path)
}

// versionOfParents finds h's version from the programs of the processes
// above the hook (the harness runs the hook, often through a shell): the
// first whose program (or script) belongs to h's npm package or a
// version-named directory.
func versionOfParents(h *Harness, env Env) string {
	parents := env.Parents
	if parents == nil {
		parents = procParents
	}
	for _, p := range parents() {
		if v := versionBeside(h, p); v != "" {
			return v
		}
	}
	return ""
}

// versionBeside is the version of h's installation that holds path: the
// package.json of h's npm package above it, or a version-named directory
// on its real path (Claude Code's native installs keep versions/<v>).
func versionBeside(h *Harness, path string) string {
	real := realPath(path)
	for d, i := filepath.Dir(real), 0; i < 5; d, i = filepath.Dir(d), i+1 {
		var pkg struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}
		if readJSON(filepath.Join(d, "package.json"), &pkg) && strings.HasPrefix(pkg.Name, packagePrefix(h)) && pkg.Version != "" {
			return pkg.Version
		}
		if base := filepath.Base(d); isVersion(base) {
			return base
		}
	}
	return ""
}

func packagePrefix(h *Harness) string {
	switch h {
	case Claude:
		return "@anthropic-ai/claude-code"
	case Codex:
		return "@openai/codex"
	case Gemini:
		return "@google/gemini-cli"
	case Copilot:
		return "@github/copilot"
	case Opencode:
		// opencode-ai, or the platform package holding its program
		// (opencode-linux-x64, ...).
		return "opencode-"
	}
	return "\x00"
}

func isVersion(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// versionLess compares dotted numeric versions (a pre-release suffix
// after '-' is ignored).
func versionLess(a, b string) bool {
	pa, pb := strings.Split(strings.SplitN(a, "-", 2)[0], "."), strings.Split(strings.SplitN(b, "-", 2)[0], ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
