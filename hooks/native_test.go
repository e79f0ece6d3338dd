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
	return Env{Home: home, Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
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

// Claude Code: CLAUDE.md always; AGENTS.md from 2.1.277 where a folder has
// no CLAUDE.md (projectInstructions "agents-fallback"), or beside it
// ("both"), or never ("claude").
func TestClaudeNative(t *testing.T) {
	r := t.TempDir()
	writeAll(t, r, map[string]string{"AGENTS.md": "a", "sub/CLAUDE.md": "c", "sub/AGENTS.md": "a2"})
	sub := filepath.Join(r, "sub")
	for _, tt := range []struct {
		version, mode            string
		known, rootA, subA, subC bool
	}{
		{"", "", false, false, false, true},
		{"2.1.197", "", true, false, false, true},
		{"2.1.277", "", true, true, false, true},
		{"2.1.332", "both", true, true, true, true},
		{"2.1.332", "claude", true, false, false, true},
	} {
		home := t.TempDir()
		if tt.mode != "" {
			writeAll(t, home, map[string]string{".claude/settings.json": `{"projectInstructions": "` + tt.mode + `"}`})
		}
		n := NativeView(Claude, sub, envOf(home, map[string]string{"LINEAGE_CLAUDE_VERSION": tt.version, "PATH": ""}))
		got := []bool{n.Known, n.Loaded(filepath.Join(r, "AGENTS.md")), n.Loaded(filepath.Join(sub, "AGENTS.md")), n.Loaded(filepath.Join(sub, "CLAUDE.md"))}
		want := []bool{tt.known, tt.rootA, tt.subA, tt.subC}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s %q: known/rootAGENTS/subAGENTS/subCLAUDE = %v, want %v (%s)", tt.version, tt.mode, got, want, n.How)
				break
			}
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
