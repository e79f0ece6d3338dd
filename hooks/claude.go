package hooks

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Claude Code: what it loads by itself (the CLAUDE.md hierarchy, AGENTS.md
// through its built-in cc-plugin-agents-md plugin) and the paths its tools
// name. Every fact here was read from the programs' own code (the plugin
// module of 2.1.280, 2.1.281 and 2.1.332) and checked by running them
// (cmd/lineage TestHarnessClaudeVersions); docs/hooks.md lists them.

// ClaudeConfigDir is Claude Code's user configuration directory:
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeConfigDir(env Env) string {
	if v := env.get("CLAUDE_CONFIG_DIR"); v != "" {
		return v
	}
	return filepath.Join(env.Home, ".claude")
}

// claudeGlobalConfig is the file Claude Code keeps its global state in,
// the feature-flag cache among it: $CLAUDE_CONFIG_DIR/.claude.json, else
// ~/.claude.json.
func claudeGlobalConfig(env Env) string {
	if v := env.get("CLAUDE_CONFIG_DIR"); v != "" {
		return filepath.Join(v, ".claude.json")
	}
	return filepath.Join(env.Home, ".claude.json")
}

const (
	// ClaudeAgentsMdSince is the first Claude Code release with the
	// AGENTS.md plugin, behind the feature flag ClaudeAgentsMdFlag.
	ClaudeAgentsMdSince = "2.1.277"
	// ClaudeAgentsMdOnSince is the first release whose flag defaults on.
	ClaudeAgentsMdOnSince = "2.1.281"
	// ClaudeAgentsMdFlag is the remote feature flag of the plugin.
	ClaudeAgentsMdFlag = "tengu_agents_md_mod"
	// claudeAgentsPlugin is the plugin's key in enabledPlugins and
	// pluginConfigs.
	claudeAgentsPlugin = "cc-plugin-agents-md@builtin"
)

// The plugin's instructionFiles option ("/config" → Project
// instructions) and the legacy projectInstructions values it maps.
const (
	modeClaude   = "claude-md"
	modeFallback = "claude-md-or-agents-md"
	modeBoth     = "claude-md-and-agents-md"
	modeManaged  = "managed-only"
)

// claudeLegacyMode maps a legacy projectInstructions value; anything
// else reads as claude-md, as the plugin does.
func claudeLegacyMode(v string) string {
	switch v {
	case "none":
		return modeManaged
	case "agents-fallback":
		return modeFallback
	case "both":
		return modeBoth
	}
	return modeClaude
}

var (
	claudeNames = []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}
	agentsNames = []string{"AGENTS.md", ".claude/AGENTS.md"}
)

// claudePluginState is what lineage can tell of the AGENTS.md plugin.
type claudePluginState int

const (
	pluginOff claudePluginState = iota
	pluginOn
	pluginUnknown
)

// claudeNative: Claude Code loads CLAUDE.md, .claude/CLAUDE.md and
// CLAUDE.local.md in the cwd and every ancestor, and attaches those below
// the cwd when Read reads a file there. Its AGENTS.md plugin (2.1.277 on;
// available when its feature flag is on) adds by instructionFiles:
// claude-md-or-agents-md (the default) AGENTS.md and .claude/AGENTS.md of
// the cwd and its ancestors when none of them holds a CLAUDE.md file,
// claude-md-and-agents-md always, claude-md never; managed-only drops the
// project's and user's files, CLAUDE.md included.
func claudeNative(cwd string, env Env) Native {
	n := Native{Harness: Claude, files: map[string]int64{}, maybe: map[string]bool{}, Names: claudeNames}
	var from string
	n.Version, from = claudeVersion(env)
	if n.Version == "" {
		n.How = "Claude Code's version was not found (no claude on PATH or above the hook): lineage cannot tell what it loads"
		// Every release attaches the nested CLAUDE.md files to a Read; its
		// AGENTS.md plugin may.
		n.attach = []attachRule{{tools: []string{"Read"}, names: claudeNames}, {tools: []string{"Read"}, names: agentsNames, maybe: true}}
		return n
	}
	n.Known = true
	state, why := claudePlugin(n.Version, env)
	mode, modeWhy := claudeMode(cwd, env)
	if state == pluginOff {
		mode = modeClaude
	}
	n.How = "Claude Code " + n.Version + from + "; " + why
	if state != pluginOff {
		n.How += "; " + modeWhy
	}
	claudeProject := claudeOnWalk(cwd)
	agents := (mode == modeBoth || mode == modeFallback && !claudeProject) && state != pluginOff
	switch {
	case mode == modeManaged:
		n.Names = nil
	case agents:
		n.Names = append(append([]string(nil), claudeNames...), agentsNames...)
	}
	attach := env.get("CLAUDE_CODE_SIMPLE") == "" && !truthy(env.get("CLAUDE_CODE_DISABLE_ATTACHMENTS"))
	// Read attaches the CLAUDE.md files between the cwd and the file it
	// reads, whatever the plugin's mode (managed-only too: seen with
	// 2.1.332).
	n.attach = append(n.attach, attachRule{tools: []string{"Read"}, names: claudeNames})
	if agents && attach {
		r := attachRule{tools: []string{"Read"}, names: agentsNames, maybe: state == pluginUnknown}
		if mode == modeFallback {
			r.skipDirsWith = claudeNames
		}
		n.attach = append(n.attach, r)
	}
	walkUp(cwd, func(d string) {
		if mode != modeManaged {
			for _, name := range claudeNames {
				if p := filepath.Join(d, name); isFile(p) {
					n.files[realPath(p)] = -1
				}
			}
		}
		if agents {
			for _, name := range agentsNames {
				if p := filepath.Join(d, name); isFile(p) {
					if state == pluginUnknown {
						n.maybe[realPath(p)] = true
					} else {
						n.files[realPath(p)] = -1
					}
				}
			}
		}
	})
	return n
}

// claudeOnWalk reports whether dir or an ancestor holds a CLAUDE.md file:
// then the plugin's default mode loads no AGENTS.md at all.
func claudeOnWalk(dir string) bool {
	found := false
	walkUp(dir, func(d string) {
		for _, name := range claudeNames {
			found = found || isFile(filepath.Join(d, name))
		}
	})
	return found
}

func walkUp(dir string, f func(string)) {
	for d := dir; ; {
		f(d)
		parent := filepath.Dir(d)
		if parent == d {
			return
		}
		d = parent
	}
}

// claudeVersion finds the running Claude Code's version: the override,
// the claude on PATH, else the harness program above the hook process
// (IDE extensions, npx and aliases run it without PATH naming it).
func claudeVersion(env Env) (version, from string) {
	if v := harnessVersion(Claude, env); v != "" {
		return v, ""
	}
	if v := versionOfParents(Claude, env); v != "" {
		return v, " (the program running the hook)"
	}
	return "", ""
}

// claudePlugin says whether version's AGENTS.md plugin is available: not
// before 2.1.277; else its feature flag — the release's default when the
// session reads no flags (DISABLE_TELEMETRY,
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC), else the value Claude Code
// cached in its global config, else unknown (a remote answer decides).
// Bedrock, Vertex and Foundry are unknown: lineage did not see what they
// serve.
func claudePlugin(version string, env Env) (claudePluginState, string) {
	if versionLess(version, ClaudeAgentsMdSince) {
		return pluginOff, "no AGENTS.md plugin before " + ClaudeAgentsMdSince
	}
	def := !versionLess(version, ClaudeAgentsMdOnSince)
	word := map[bool]string{true: "on", false: "off"}
	if env.get("CLAUDE_CODE_USE_BEDROCK") != "" || env.get("CLAUDE_CODE_USE_VERTEX") != "" || env.get("CLAUDE_CODE_USE_FOUNDRY") != "" {
		return pluginUnknown, "AGENTS.md plugin unknown on Bedrock, Vertex or Foundry"
	}
	flagsOff := (truthy(env.get("DISABLE_TELEMETRY")) || truthy(env.get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"))) &&
		!truthy(env.get("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF"))
	if flagsOff {
		return stateOf(def), "AGENTS.md plugin " + word[def] + " (feature flags off: the release's default)"
	}
	var cfg struct {
		GrowthBook map[string]jsontext.Value `json:"cachedGrowthBookFeatures"`
		Flags      map[string]jsontext.Value `json:"cachedFeatureFlags"`
	}
	if readJSON(claudeGlobalConfig(env), &cfg) {
		cache := cfg.GrowthBook
		if cache == nil {
			cache = cfg.Flags
		}
		switch string(cache[ClaudeAgentsMdFlag]) {
		case "true":
			return pluginOn, "AGENTS.md plugin on (its cached feature flag)"
		case "false":
			return pluginOff, "AGENTS.md plugin off (its cached feature flag)"
		}
	}
	return pluginUnknown, "AGENTS.md plugin unknown (its feature flag is not cached yet)"
}

func stateOf(on bool) claudePluginState {
	if on {
		return pluginOn
	}
	return pluginOff
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// ClaudeManagedSettings is Claude Code's managed-policy settings file,
// which overrides every other settings file
// (code.claude.com/docs/en/settings): /Library/Application
// Support/ClaudeCode/managed-settings.json on macOS,
// C:\Program Files\ClaudeCode\managed-settings.json on Windows,
// /etc/claude-code/managed-settings.json elsewhere.
// LINEAGE_CLAUDE_MANAGED_SETTINGS names another file (tests, and
// installations that keep it elsewhere).
func ClaudeManagedSettings(env Env) string {
	if p := env.get("LINEAGE_CLAUDE_MANAGED_SETTINGS"); p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		pf := env.get("ProgramFiles")
		if pf == "" {
			pf = `C:\Program Files`
		}
		return filepath.Join(pf, "ClaudeCode", "managed-settings.json")
	}
	return "/etc/claude-code/managed-settings.json"
}

// claudeMode is the plugin's mode as Claude Code resolves it: the
// settings files (managed policy over local over project over user) give
// pluginConfigs["cc-plugin-agents-md@builtin"].options.instructionFiles
// and the legacy options.projectInstructions (honoured while
// instructionFiles is unset or the default); enabledPlugins false turns
// the plugin off. A top-level projectInstructions key is not read.
func claudeMode(cwd string, env Env) (mode, why string) {
	var files, legacy string
	enabled := true
	for _, p := range []string{
		ClaudeManagedSettings(env),
		filepath.Join(cwd, ".claude", "settings.local.json"),
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(ClaudeConfigDir(env), "settings.json"),
	} {
		var s struct {
			Enabled map[string]jsontext.Value `json:"enabledPlugins"`
			Configs map[string]struct {
				Options struct {
					InstructionFiles    jsontext.Value `json:"instructionFiles"`
					ProjectInstructions jsontext.Value `json:"projectInstructions"`
				} `json:"options"`
			} `json:"pluginConfigs"`
		}
		if !readJSON(p, &s) {
			continue
		}
		if v, ok := s.Enabled[claudeAgentsPlugin]; ok && enabled && string(v) == "false" {
			enabled = false
		}
		o := s.Configs[claudeAgentsPlugin].Options
		if files == "" && len(o.InstructionFiles) > 0 {
			files = jsonStringOr(o.InstructionFiles, "\x00")
		}
		if legacy == "" && len(o.ProjectInstructions) > 0 {
			legacy = jsonStringOr(o.ProjectInstructions, "\x00")
		}
	}
	if !enabled {
		return modeClaude, "plugin disabled (enabledPlugins)"
	}
	switch files {
	case modeClaude, modeFallback, modeBoth, modeManaged:
	default:
		files = modeFallback
	}
	mode = files
	if legacy != "" && files == modeFallback {
		mode = claudeLegacyMode(legacy)
		return mode, "instructionFiles " + strconv.Quote(mode) + " (from the legacy projectInstructions)"
	}
	return mode, "instructionFiles " + strconv.Quote(mode)
}

// jsonStringOr is the JSON string v, or or when v is not a string.
func jsonStringOr(v jsontext.Value, or string) string {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return or
	}
	return s
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
