package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// opencode (opencode.ai) has no hook commands: it loads plugins, JS or TS
// modules in a "plugins" folder of its config directories. lineage's
// plugin (opencode_plugin.js, written by `lineage hook install opencode`)
// runs `lineage hook opencode` with one event as JSON on stdin, in the
// shape the other harnesses send: hook_event_name, session_id, agent_id
// (a child session: a subagent of its parent's), cwd, source, tool_name
// and tool_input (the tool's arguments). The events are the plugin's:
//   - session.start, at a session's first request in an opencode process
//     (its experimental.chat.system.transform hook; source "compact" after
//     a compaction): the answer joins the system prompt of every request;
//   - tool.execute.after: the answer is appended to the tool's output;
//   - session.compacting (experimental.session.compacting): the session's
//     state is dropped, and the plugin asks for the start again.
const (
	opencodeStartEvent   = "session.start"
	opencodeToolEvent    = "tool.execute.after"
	opencodeCompactEvent = "session.compacting"
)

// opencodeNames are the file names opencode loads by itself, in its order
// (its Instruction service): in each directory, and for the chain, the
// first name found wins. CLAUDE.md is left out when its Claude Code
// compatibility is off.
func opencodeNames(env Env) []string {
	if envTrue(env, "OPENCODE_DISABLE_CLAUDE_CODE") || envTrue(env, "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT") {
		return []string{"AGENTS.md", "CONTEXT.md"}
	}
	return []string{"AGENTS.md", "CLAUDE.md", "CONTEXT.md"}
}

// envTrue reads one of opencode's boolean flags ("true" or "1").
func envTrue(env Env, key string) bool {
	v := strings.ToLower(env.get(key))
	return v == "true" || v == "1"
}

// opencodePaths: the paths an opencode tool's arguments name: filePath
// (read, edit, write, lsp), path (glob, grep, list: a directory), workdir
// (bash), and the files of an apply_patch's patchText.
func opencodePaths(tool string, input map[string]any) ([]string, error) {
	switch tool {
	case "read", "edit", "write", "lsp":
		return str(input, "filePath")
	case "glob", "grep", "list":
		return str(input, "path")
	case "bash":
		return str(input, "workdir")
	case "apply_patch":
		return codexPaths(tool, map[string]any{"patch": input["patchText"]})
	}
	return nil, nil
}

// opencodeOutput is the plugin's answer: {"context": text}, nothing when
// the text is empty.
func opencodeOutput(context string) ([]byte, error) {
	if context == "" {
		return nil, nil
	}
	out, err := json.Marshal(struct {
		Context string `json:"context"`
	}{context}, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// opencodeConfigDir is opencode's global config directory:
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode (on every OS).
func opencodeConfigDir(env Env) string {
	if x := env.get("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "opencode")
	}
	return filepath.Join(env.Home, ".config", "opencode")
}

// opencodeNative: at a session start opencode puts in the system prompt
// its global AGENTS.md (else ~/.claude/CLAUDE.md) and, unless
// OPENCODE_DISABLE_PROJECT_CONFIG is set, every file of the first of its
// names found from the working directory up to the worktree root (the
// git repository's top, else the filesystem root). Its read tool appends
// to its output the first of those names in each directory between the
// file read and the working directory, once per session. The files its
// instructions setting names are loaded too (opencodeconfig.go).
func opencodeNative(cwd string, env Env) Native {
	names := opencodeNames(env)
	n := Native{Harness: Opencode, Known: true, Names: names, files: map[string]int64{},
		How: "opencode loads the first of " + strings.Join(names, ", ") + " found from the working directory up to the worktree root, and its read tool attaches nested ones"}
	global := []string{filepath.Join(opencodeConfigDir(env), "AGENTS.md")}
	if len(names) == 3 && env.Home != "" {
		global = append(global, filepath.Join(env.Home, ".claude", "CLAUDE.md"))
	}
	for _, p := range global {
		if isFile(p) {
			n.files[realPath(p)] = -1
			break
		}
	}
	root := gitTop(cwd)
	if !envTrue(env, "OPENCODE_DISABLE_PROJECT_CONFIG") {
		for _, name := range names {
			found := false
			for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
				if p := filepath.Join(d, name); isFile(p) {
					n.files[realPath(p)], found = -1, true
				}
				if d == root || filepath.Dir(d) == d {
					break
				}
			}
			if found {
				break
			}
		}
	}
	if entries := opencodeInstructions(cwd, root, env); len(entries) > 0 {
		n.globs = opencodeGlobs(entries, cwd, root, env)
		n.How += ", and the files its instructions setting names (" + strings.Join(entries, ", ") + ")"
	}
	for i, name := range names {
		n.attach = append(n.attach, attachRule{tools: []string{"read"}, names: []string{name}, skipDirsWith: names[:i]})
	}
	return n
}

// gitTop is the nearest directory at or above dir holding .git, "" when
// there is none (the walk then goes up to the filesystem root).
func gitTop(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
