package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeAll(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func envOf(home string, vars map[string]string) Env {
	return Env{Home: home, Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, Parents: func() []string { return nil }}
}

// Codex CLI: the git root down to the cwd, first of AGENTS.override.md,
// AGENTS.md and the fallbacks; cut at project_doc_max_bytes; a
// whitespace-only file neither loaded nor counted.
func TestCodexNative(t *testing.T) {
	r := t.TempDir()
	writeAll(t, r, map[string]string{
		"outside/AGENTS.md":                   "above the root",
		"outside/repo/.git/HEAD":              "",
		"outside/repo/AGENTS.md":              "0123456789",
		"outside/repo/a/AGENTS.md":            "  \n",
		"outside/repo/a/b/AGENTS.override.md": "override",
		"outside/repo/a/b/AGENTS.md":          "shadowed",
		"outside/repo/a/b/c/TEAM.md":          "team rules",
		"home/.codex/config.toml":             "project_doc_fallback_filenames = [\"TEAM.md\"] # ours\nproject_doc_max_bytes = 20\n[features]\nhooks = false\n",
	})
	cwd := filepath.Join(r, "outside/repo/a/b/c")
	n := NativeView(Codex, cwd, envOf(filepath.Join(r, "home"), nil))
	p := func(s string) string { return filepath.Join(r, "outside/repo", s) }
	if !n.Known || !n.Loaded(p("AGENTS.md")) || n.Loaded(filepath.Join(r, "outside/AGENTS.md")) || n.Loaded(p("a/AGENTS.md")) ||
		!n.Loaded(p("a/b/AGENTS.override.md")) || n.Loaded(p("a/b/AGENTS.md")) {
		t.Errorf("loaded: %v", n.files)
	}
	if kept, cut := n.Cut(p("a/b/c/TEAM.md")); !cut || kept != 2 {
		t.Errorf("TEAM.md cut = %d, %v; want 2 bytes kept (20 - 10 - 8)", kept, cut)
	}
	if !strings.Contains(n.How, "TEAM.md") || !readCodexConfig(filepath.Join(r, "home/.codex/config.toml")).hooksOff {
		t.Errorf("config not read: %s", n.How)
	}
	// CODEX_HOME moves the config; without a git root only the cwd counts.
	writeAll(t, r, map[string]string{"nogit/AGENTS.md": "x", "nogit/sub/AGENTS.md": "y"})
	n = NativeView(Codex, filepath.Join(r, "nogit/sub"), envOf(r, map[string]string{"CODEX_HOME": filepath.Join(r, "none")}))
	if n.Loaded(filepath.Join(r, "nogit/AGENTS.md")) || !n.Loaded(filepath.Join(r, "nogit/sub/AGENTS.md")) {
		t.Errorf("no git root: %v", n.files)
	}
}

// Claude Code: CLAUDE.md always (but with managed-only); AGENTS.md from
// 2.1.277 through its plugin — available by the feature flag (the
// release's default with flags off: off before 2.1.281, on from it; else
// the cached value; else unknown), loaded by instructionFiles.
func TestClaudeNative(t *testing.T) {
	r := t.TempDir()
	writeAll(t, r, map[string]string{"AGENTS.md": "a", "sub/AGENTS.md": "a2", "c/CLAUDE.md": "c", "c/AGENTS.md": "a3"})
	sub, c := filepath.Join(r, "sub"), filepath.Join(r, "c")
	const flagsOff, flagsOn = "off", "on"
	plugin := func(mode string) string {
		return `{"pluginConfigs": {"cc-plugin-agents-md@builtin": {"options": {"instructionFiles": "` + mode + `"}}}}`
	}
	for _, tt := range []struct {
		name, version, flags, cache, settings string
		// want: state of sub/AGENTS.md, root AGENTS.md, c/CLAUDE.md, c/AGENTS.md
		// (seen from sub, sub, c, c): L loaded, - not, ? unsure.
		want string
	}{
		{"no version", "", flagsOff, "", "", "????"},
		{"2.1.197", "2.1.197", flagsOff, "", "", "--L-"},
		{"2.1.280 flags off", "2.1.280", flagsOff, "", "", "--L-"},
		{"2.1.280 cached on", "2.1.280", flagsOn, `{"cachedGrowthBookFeatures": {"tengu_agents_md_mod": true}}`, "", "LLL-"},
		{"2.1.280 flags on, no cache", "2.1.280", flagsOn, "", "", "??L-"},
		{"2.1.281 flags off", "2.1.281", flagsOff, "", "", "LLL-"},
		{"2.1.332 cached off", "2.1.332", flagsOn, `{"cachedFeatureFlags": {"tengu_agents_md_mod": false}}`, "", "--L-"},
		{"2.1.332 claude-md", "2.1.332", flagsOff, "", plugin("claude-md"), "--L-"},
		{"2.1.332 both", "2.1.332", flagsOff, "", plugin("claude-md-and-agents-md"), "LLLL"},
		{"2.1.332 managed-only", "2.1.332", flagsOff, "", plugin("managed-only"), "----"},
		{"2.1.332 legacy none", "2.1.332", flagsOff, "", `{"pluginConfigs": {"cc-plugin-agents-md@builtin": {"options": {"projectInstructions": "none"}}}}`, "----"},
		{"2.1.332 top-level key ignored", "2.1.332", flagsOff, "", `{"projectInstructions": "claude"}`, "LLL-"},
		{"2.1.332 plugin disabled", "2.1.332", flagsOff, "", `{"enabledPlugins": {"cc-plugin-agents-md@builtin": false}}`, "--L-"},
	} {
		home := t.TempDir()
		files := map[string]string{}
		if tt.settings != "" {
			files[".claude/settings.json"] = tt.settings
		}
		if tt.cache != "" {
			files[".claude/.claude.json"] = tt.cache
		}
		writeAll(t, home, files)
		vars := map[string]string{"LINEAGE_CLAUDE_VERSION": tt.version, "PATH": "", "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude")}
		if tt.flags == flagsOff {
			vars["DISABLE_TELEMETRY"] = "1"
		}
		state := func(n Native, p string) byte {
			switch {
			case n.Unsure(p):
				return '?'
			case n.Loaded(p):
				return 'L'
			}
			return '-'
		}
		ns, nc := NativeView(Claude, sub, envOf(home, vars)), NativeView(Claude, c, envOf(home, vars))
		got := string([]byte{state(ns, filepath.Join(sub, "AGENTS.md")), state(ns, filepath.Join(r, "AGENTS.md")), state(nc, filepath.Join(c, "CLAUDE.md")), state(nc, filepath.Join(c, "AGENTS.md"))})
		if got != tt.want {
			t.Errorf("%s: sub/AGENTS.md, AGENTS.md, c/CLAUDE.md, c/AGENTS.md = %s, want %s (%s / %s)", tt.name, got, tt.want, ns.How, nc.How)
		}
	}
}

// The Claude Code program is found above the hook when PATH has none.
func TestClaudeVersionFromParents(t *testing.T) {
	r := t.TempDir()
	writeAll(t, r, map[string]string{
		"node_modules/claude-code-2.1.281/package.json":   `{"name": "@anthropic-ai/claude-code", "version": "2.1.281"}`,
		"node_modules/claude-code-2.1.281/bin/claude.exe": "",
	})
	env := envOf(r, map[string]string{"PATH": "", "DISABLE_TELEMETRY": "1"})
	env.Parents = func() []string {
		return []string{"/bin/sh", filepath.Join(r, "node_modules", "claude-code-2.1.281", "bin", "claude.exe")}
	}
	n := NativeView(Claude, r, env)
	if n.Version != "2.1.281" || !n.Known || !strings.Contains(n.How, "(the program running the hook)") {
		t.Errorf("version %q known %v: %s", n.Version, n.Known, n.How)
	}
}

// What the harness attaches to a tool's result itself: Claude Code the
// CLAUDE.md files between the cwd and a file Read reads (and, by its
// plugin, AGENTS.md); Gemini CLI its context files near a touched path.
func TestNativeAttached(t *testing.T) {
	r := t.TempDir()
	writeAll(t, r, map[string]string{".git/HEAD": "", "web/CLAUDE.md": "c", "web/AGENTS.md": "a", "api/AGENTS.md": "a", "web/GEMINI.md": "g"})
	p := func(s string) string { return filepath.Join(r, filepath.FromSlash(s)) }
	claude := NativeView(Claude, r, envOf(r, map[string]string{"LINEAGE_CLAUDE_VERSION": "2.1.332", "DISABLE_TELEMETRY": "1"}))
	gemini := NativeView(Gemini, r, envOf(r, map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}))
	geminiUntrusted := NativeView(Gemini, r, envOf(r, nil))
	claudeUnknown := NativeView(Claude, r, envOf(r, nil))
	for _, tt := range []struct {
		name         string
		n            Native
		tool, target string
		path         string
		want         Attach
	}{
		{"claude nested CLAUDE.md on Read", claude, "Read", p("web/src/a.ts"), p("web/CLAUDE.md"), Attached},
		{"claude nested CLAUDE.md on Edit", claude, "Edit", p("web/src/a.ts"), p("web/CLAUDE.md"), NotAttached},
		{"claude nested AGENTS.md beside a CLAUDE.md (fallback)", claude, "Read", p("web/src/a.ts"), p("web/AGENTS.md"), NotAttached},
		{"claude nested AGENTS.md", claude, "Read", p("api/h.go"), p("api/AGENTS.md"), Attached},
		{"claude a file outside the read path", claude, "Read", p("api/h.go"), p("web/CLAUDE.md"), NotAttached},
		{"claude unknown version, nested CLAUDE.md", claudeUnknown, "Read", p("web/src/a.ts"), p("web/CLAUDE.md"), Attached},
		{"claude unknown version, nested AGENTS.md", claudeUnknown, "Read", p("api/h.go"), p("api/AGENTS.md"), MaybeAttached},
		{"gemini read_file", gemini, "read_file", p("web/src/a.ts"), p("web/GEMINI.md"), Attached},
		{"gemini list_directory of the folder", gemini, "list_directory", p("web"), p("web/GEMINI.md"), Attached},
		{"gemini grep_search", gemini, "grep_search", p("web"), p("web/GEMINI.md"), NotAttached},
		{"gemini other names", gemini, "read_file", p("web/src/a.ts"), p("web/AGENTS.md"), NotAttached},
		{"gemini untrusted?", geminiUntrusted, "read_file", p("web/src/a.ts"), p("web/GEMINI.md"), MaybeAttached},
	} {
		if got := tt.n.Attached(tt.tool, tt.target, r, tt.path); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Gemini CLI: context.fileName from the workspace, else the user settings
// under GEMINI_CLI_HOME.
func TestGeminiNative(t *testing.T) {
	r := t.TempDir()
	writeAll(t, r, map[string]string{"p/.git/HEAD": "", "p/GEMINI.md": "g", "p/AGENTS.md": "a",
		"gh/.gemini/settings.json": `{"context": {"fileName": ["AGENTS.md"]}}`})
	p := filepath.Join(r, "p")
	if n := NativeView(Gemini, p, envOf(r, nil)); !n.Loaded(filepath.Join(p, "GEMINI.md")) || n.Loaded(filepath.Join(p, "AGENTS.md")) {
		t.Errorf("default names: %v", n.files)
	}
	if n := NativeView(Gemini, p, envOf(r, map[string]string{"GEMINI_CLI_HOME": filepath.Join(r, "gh")})); n.Loaded(filepath.Join(p, "GEMINI.md")) || !n.Loaded(filepath.Join(p, "AGENTS.md")) {
		t.Errorf("context.fileName AGENTS.md: %v", n.files)
	}
}

func TestVersionLess(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{{"2.1.197", "2.1.277", true}, {"2.1.277", "2.1.277", false}, {"2.1.332", "2.1.277", false}, {"2.10.0", "2.9.9", false}, {"2.1.276-beta", "2.1.277", true}} {
		if got := versionLess(tt.a, tt.b); got != tt.want {
			t.Errorf("versionLess(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
