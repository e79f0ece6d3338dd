package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarnessMemory runs the memory end to end with the real
// programs: Claude Code's model saves a memory through lineage's MCP
// memory_save (with lineage's hook installed, so the memory names the
// Claude session), and the next Codex CLI session in the project starts
// with it exactly once, naming the harness and the session it came from.
// One home holds both harnesses' settings and the one sessions store.
func TestHarnessMemory(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	home := t.TempDir()
	repo := hookRepo(t, "AGENTS.md")
	const fact = "MEMSAVED-42"

	// Claude Code 2.1.197 (the newest keeps MCP tools behind its tool
	// search): one short session whose model calls memory_save.
	c := claudes(t, modules)[1]
	claudeSrv := newModelServer(t, anthropicHandler)
	cenv := claudeEnv(t, c, home, claudeSrv.url)
	runHarness(t, home, cenv, lineage, "hook", "install", "claude")
	runHarness(t, home, cenv, lineage, "mcp", "install", "claude")
	session := "5c1e0f2a-9b3d-4c7e-8a61-2f4d6b8e0c13"
	runHarness(t, repo, cenv, c.bin, "-p", "--output-format", "text", "--session-id", session,
		"LINEAGE-REMEMBER "+fact, "--allowedTools", "mcp__lineage__memory_save")
	var saved bool
	for _, b := range claudeSrv.requests("/v1/messages") {
		saved = saved || strings.Contains(b, "toolu_mem1") && strings.Contains(b, `tool_result`)
	}
	if !saved {
		t.Fatal("Claude Code's model never got memory_save's result")
	}
	var list struct {
		Memories []struct{ ID, Text, Source, Harness, Session string }
	}
	out := lineageIn(t, repo, cenv, lineage, "memory", "list", "--json", "--no-native")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Memories) != 1 {
		t.Fatalf("memory list after Claude Code's session: %v\n%s", err, out)
	}
	m := list.Memories[0]
	if !strings.HasPrefix(m.Text, fact) || m.Harness != "claude" || m.Session != session {
		t.Fatalf("the saved memory: %+v", m)
	}

	// Codex CLI's next session in the project starts with it, once.
	srv := newModelServer(t, responsesHandler)
	codexHome := fakeCodexHome(t, home, srv.url)
	env := baseEnv(home, "CODEX_HOME="+codexHome, "FAKE_API_KEY=sk-fake", "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
	runHarness(t, home, env, lineage, "hook", "install", "codex")
	codex := filepath.Join(modules, "@openai", "codex", "bin", "codex.js")
	runHarness(t, repo, env, "node", codex, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "What do you remember?")
	reqs := srv.requests("/responses")
	if len(reqs) == 0 {
		t.Fatal("Codex made no model request")
	}
	provenance := "(project memory " + m.ID + ", saved by claude in session " + session[:8] + " at "
	for _, want := range []string{fact + " the API listens on port 7411", provenance, "<lineage_memory>"} {
		if n := strings.Count(reqs[0], want); n != 1 {
			t.Errorf("Codex CLI's first request holds %q %d times, want once:\n%.4000s", want, n, reqs[0])
		}
	}
}
