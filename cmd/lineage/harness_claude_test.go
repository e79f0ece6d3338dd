package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// TestHarnessClaudeVersions runs the Claude Code releases of the matrix
// that TestHarnessClaudeCode does not (2.1.280: the AGENTS.md plugin
// behind a flag that defaults off; 2.1.281: on) and, with the newest, each
// /config "Project instructions" choice besides the default, one session each against one fake model server,
// with claude NOT on PATH (the hook finds the program above it, as under
// an IDE or npx), and asserts the contract: each instruction body reaches
// the model exactly once per session — the root AGENTS.md (or CLAUDE.md)
// in every request, web/AGENTS.md after the Read, counting Claude Code's
// own loading and lineage's naming of a path — and the start never says
// Claude Code loaded a file it did not.
func TestHarnessClaudeVersions(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	srv := newModelServer(t, anthropicHandler)
	bin := func(dir string) string { return filepath.Join(modules, dir, "bin", "claude.exe") }
	plugin := func(mode string) string {
		return `{"pluginConfigs": {"cc-plugin-agents-md@builtin": {"options": {"instructionFiles": "` + mode + `"}}}}`
	}
	for _, tt := range []struct {
		name, bin, settings string
		// loadsRoot: Claude Code puts the root file in context itself.
		loadsRoot bool
		files     []string
	}{
		{"2.1.280", bin("claude-code-2.1.280"), "", false, []string{"AGENTS.md"}},
		{"2.1.281", bin("claude-code-2.1.281"), "", true, []string{"AGENTS.md"}},
		{"2.1.332 claude-md", bin(filepath.Join("@anthropic-ai", "claude-code")), plugin("claude-md"), false, []string{"AGENTS.md"}},
		{"2.1.332 claude-md-and-agents-md", bin(filepath.Join("@anthropic-ai", "claude-code")), plugin("claude-md-and-agents-md"), true, []string{"AGENTS.md"}},
		{"2.1.332 managed-only", bin(filepath.Join("@anthropic-ai", "claude-code")), plugin("managed-only"), false, []string{"CLAUDE.md"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv.reset()
			home := t.TempDir()
			env := baseEnv(home,
				"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
				"ANTHROPIC_BASE_URL="+srv.url,
				"ANTHROPIC_API_KEY=sk-ant-test",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"DISABLE_AUTOUPDATER=1",
				"DISABLE_TELEMETRY=1",
			)
			if tt.settings != "" {
				platformtest.WriteTree(t, home, map[string]string{".claude/settings.json": tt.settings})
			}
			name := tt.files[0]
			runHarness(t, home, env, lineage, "hook", "install", "claude", "--file-names", name)
			if path := os.Getenv("PATH"); strings.Contains(path, filepath.Dir(tt.bin)) {
				t.Fatalf("PATH names %s: the test wants claude found above the hook", filepath.Dir(tt.bin))
			}
			repo := hookRepo(t, tt.files...)
			app := filepath.Join(repo, "web", "src", "app.ts")
			runHarness(t, repo, env, tt.bin, "-p", "--output-format", "text", "LINEAGE-READ "+app)
			main := claudeConversation(srv, "LINEAGE-READ")
			if len(main) < 2 {
				t.Fatalf("the conversation made %d requests, want the Read and its result", len(main))
			}
			root, web := "ROOTMARK-"+name, "WEBMARK-"+name
			webNamed := filepath.Join(repo, "web", name) + " (mtime: "
			for i, b := range main {
				if n := strings.Count(b, root); n != 1 {
					t.Errorf("request %d holds the root %s text %d times, want once", i, name, n)
				}
			}
			loadedItself := "Claude Code loaded " + filepath.Join(repo, name) + " itself"
			if strings.Contains(main[0], jsonEscaped(loadedItself)) != tt.loadsRoot {
				t.Errorf("the start says %q: %v, want %v:\n%.3000s", loadedItself, !tt.loadsRoot, tt.loadsRoot, main[0])
			}
			if sent := strings.Contains(main[0], jsonEscaped("Instructions from: "+filepath.Join(repo, name))); sent == tt.loadsRoot {
				t.Errorf("lineage sent the root body: %v, want %v", sent, !tt.loadsRoot)
			}
			last := main[len(main)-1]
			if n := strings.Count(last, web) + strings.Count(last, jsonEscaped(webNamed)); n != 1 {
				t.Errorf("after the Read, web/%s's text plus lineage's naming of it appear %d times, want once:\n%.4000s", name, n, last)
			}
		})
	}
}

// jsonEscaped is s as it appears inside a JSON string.
func jsonEscaped(s string) string {
	q := jsonString(s)
	return q[1 : len(q)-1]
}
