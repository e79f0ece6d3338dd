package hooks

import (
	"path/filepath"
	"strconv"
)

// Claude Code: what it loads by itself (CLAUDE.md files, AGENTS.md by its
// projectInstructions setting) and the paths its tools name.

// ClaudeConfigDir is Claude Code's user configuration directory:
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeConfigDir(env Env) string {
	if v := env.get("CLAUDE_CONFIG_DIR"); v != "" {
		return v
	}
	return filepath.Join(env.Home, ".claude")
}

// ClaudeAgentsMdSince is the first Claude Code release that loads
// AGENTS.md by itself (its changelog: "in a project with no CLAUDE.md,
// Claude Code reads AGENTS.md instead").
const ClaudeAgentsMdSince = "2.1.277"

// claudeNative: Claude Code loads CLAUDE.md, .claude/CLAUDE.md and
// CLAUDE.local.md in the cwd and every ancestor; from 2.1.277 also
// AGENTS.md and .claude/AGENTS.md, by its "Project instructions" setting
// (projectInstructions: "agents-fallback", the default, where a directory
// has no CLAUDE.md; "both"; "claude"; "none"), except on Bedrock, Vertex
// and Foundry.
func claudeNative(cwd string, env Env) Native {
	n := Native{Harness: Claude, files: map[string]int64{}, Names: []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}}
	n.Version = harnessVersion(Claude, env)
	mode := claudeProjectInstructions(cwd, env)
	agents := false
	switch {
	case n.Version == "":
		n.How = "Claude Code's version was not found (no claude on PATH): lineage cannot tell whether it loads AGENTS.md"
	case versionLess(n.Version, ClaudeAgentsMdSince):
		n.Known = true
		n.How = "Claude Code " + n.Version + " loads CLAUDE.md files only (AGENTS.md from " + ClaudeAgentsMdSince + ")"
	case env.get("CLAUDE_CODE_USE_BEDROCK") != "" || env.get("CLAUDE_CODE_USE_VERTEX") != "" || env.get("CLAUDE_CODE_USE_FOUNDRY") != "":
		n.Known = true
		n.How = "Claude Code " + n.Version + " on Bedrock, Vertex or Foundry loads CLAUDE.md files only"
	default:
		n.Known = true
		n.How = "Claude Code " + n.Version + ", project instructions " + strconv.Quote(mode)
		switch mode {
		case "none":
			n.Names = nil
		case "both", "agents-fallback":
			agents = true
			n.Names = append(n.Names, "AGENTS.md", ".claude/AGENTS.md")
		}
	}
	for d := cwd; ; {
		claudeFile := false
		if n.Names != nil {
			for _, name := range []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"} {
				if p := filepath.Join(d, name); isFile(p) {
					n.files[realPath(p)] = -1
					claudeFile = true
				}
			}
		}
		if agents && (mode == "both" || !claudeFile) {
			for _, name := range []string{"AGENTS.md", ".claude/AGENTS.md"} {
				if p := filepath.Join(d, name); isFile(p) {
					n.files[realPath(p)] = -1
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return n
}

// claudeProjectInstructions is the projectInstructions setting, local
// settings over project settings over user settings; default
// "agents-fallback".
func claudeProjectInstructions(cwd string, env Env) string {
	for _, p := range []string{
		filepath.Join(cwd, ".claude", "settings.local.json"),
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(ClaudeConfigDir(env), "settings.json"),
	} {
		var s struct {
			ProjectInstructions string `json:"projectInstructions"`
		}
		if readJSON(p, &s) && s.ProjectInstructions != "" {
			return s.ProjectInstructions
		}
	}
	return "agents-fallback"
}

// claudePaths: the file tools of Claude Code's tool reference — Read,
// Edit, Write, MultiEdit (file_path), NotebookEdit (notebook_path), Grep,
// Glob, LS (path).
func claudePaths(tool string, input map[string]any) ([]string, error) {
	switch tool {
	case "Read", "Edit", "Write", "MultiEdit":
		return str(input, "file_path")
	case "NotebookEdit":
		return str(input, "notebook_path")
	case "Grep", "Glob", "LS":
		return str(input, "path")
	}
	return nil, nil
}
