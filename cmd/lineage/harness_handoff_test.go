package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/internal/platformtest"
)

// TestHarnessHandoff runs the end to end with the real programs: a
// Claude Code session of two turns, recorded by lineage's hook, is handed
// off (`lineage handoff --to codex|gemini --summary …`), and the next
// session of Codex CLI and of Gemini CLI in that project starts with the
// summary and the tail — the last turn — exactly once, inside the
// lineage_handoff frame naming the Claude session (the provenance), while
// the first turn (which the summary stands for) is not sent. One home
// holds every harness's settings and the one sessions store.
func TestHarnessHandoff(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	home := t.TempDir()
	repo := hookRepo(t, "AGENTS.md")

	// Claude Code: two turns of one session, recorded live.
	c := claudes(t, modules)[0]
	claudeSrv := newModelServer(t, anthropicHandler)
	cenv := claudeEnv(t, c, home, claudeSrv.url)
	runHarness(t, home, cenv, lineage, "hook", "install", "claude", "--record")
	session := "7a2d8b63-4c2f-4e5a-8b62-1d4e8f9a0b12"
	runHarness(t, repo, cenv, c.bin, "-p", "--output-format", "text", "--session-id", session, "LINEAGE-FIRST look at the parser")
	runHarness(t, repo, cenv, c.bin, "-p", "--output-format", "text", "--resume", session, "LINEAGE-TAIL explain the bug")
	checkRecorded(t, home, cenv, lineage, "claude", "LINEAGE-FIRST", "message/user: LINEAGE-FIRST", "message/user: LINEAGE-TAIL")

	const summary = "HANDOFF-SUMMARY the parser drops its last token"
	frame := `lineage_handoff session=\"claude-` + session + `\"`
	// check asserts on the first model request of the handed-off session.
	check := func(t *testing.T, who, first string) {
		t.Helper()
		for _, want := range []string{summary, "LINEAGE-TAIL explain the bug", frame} {
			if n := strings.Count(first, want); n != 1 {
				t.Errorf("%s's first request holds %q %d times, want once:\n%.4000s", who, want, n, first)
			}
		}
		if strings.Contains(first, "LINEAGE-FIRST") {
			t.Errorf("%s's first request holds the first turn, which the summary stands for", who)
		}
	}

	t.Run("codex", func(t *testing.T) {
		srv := newModelServer(t, responsesHandler)
		codexHome := fakeCodexHome(t, home, srv.url)
		env := baseEnv(home, "CODEX_HOME="+codexHome, "FAKE_API_KEY=sk-fake")
		runHarness(t, home, env, lineage, "hook", "install", "codex")
		out := lineageIn(t, repo, env, lineage, "handoff", session, "--to", "codex", "--summary", summary)
		if !strings.Contains(out, handoff.StartPrompt) {
			t.Fatalf("handoff --to codex printed %q", out)
		}
		codex := filepath.Join(modules, "@openai", "codex", "bin", "codex.js")
		runHarness(t, repo, env, "node", codex, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", handoff.StartPrompt)
		reqs := srv.requests("/responses")
		if len(reqs) == 0 {
			t.Fatal("Codex made no model request")
		}
		check(t, "Codex CLI", reqs[0])
	})

	t.Run("gemini", func(t *testing.T) {
		srv := newModelServer(t, geminiHandler)
		env := baseEnv(home, "GEMINI_CLI_HOME="+home, "GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL="+srv.url,
			"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true")
		platformtest.WriteTree(t, home, map[string]string{".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}}` + "\n"})
		runHarness(t, home, env, lineage, "hook", "install", "gemini")
		lineageIn(t, repo, env, lineage, "handoff", session, "--to", "gemini", "--summary", summary)
		gemini := filepath.Join(modules, "@google", "gemini-cli", "bundle", "gemini.js")
		runHarness(t, repo, env, "node", gemini, "-p", handoff.StartPrompt, "--output-format", "text")
		var main []string
		for _, b := range srv.requests(":streamGenerateContent") {
			if strings.Contains(b, `"read_file"`) {
				main = append(main, b)
			}
		}
		if len(main) == 0 {
			t.Fatal("Gemini CLI made no main request")
		}
		check(t, "Gemini CLI", main[0])
	})
}
