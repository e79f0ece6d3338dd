package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// codexCompactPrompt is in Codex CLI's local compaction request (codex-rs
// core/src/compact.rs: the summary prompt it sends as the last user turn
// when the provider is not OpenAI's own, which compacts remotely).
const codexCompactPrompt = "CONTEXT CHECKPOINT COMPACTION"

// compactionHandler plays the model for a Codex CLI session that
// compacts: the first answer reports more input tokens than the session's
// model_auto_compact_token_limit, so Codex compacts before it samples
// again; the compaction request gets a summary (SUMMARY-MARK). The first
// user turn "LINEAGE-PATCH <a> LINEAGE-PATCH2 <b>" adds a; after the
// compaction, b; then "Done.". More than 12 requests get "Done." (a
// bounded loop, whatever Codex does).
func compactionHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	req, ok := codexResponses(w, r, body)
	if !ok {
		return
	}
	text := strings.ReplaceAll(string(body), `\n`, " ")
	if strings.Contains(text, codexCompactPrompt) {
		sendResponse(w, assistantText("SUMMARY-MARK: the user asked for two files; the first is added."), 100)
		return
	}
	calls := strings.Count(text, `"type":"custom_tool_call_output"`) + strings.Count(text, `"type":"function_call_output"`)
	var item map[string]any
	tokens := 10
	switch compacted := strings.Contains(text, "SUMMARY-MARK"); {
	case len(m.requests("/responses")) > 12:
	case !compacted && calls == 0:
		item, tokens = req.patch(pathAfter(text, "LINEAGE-PATCH ")), 50000
	case compacted && calls == 0:
		item = req.patch(pathAfter(text, "LINEAGE-PATCH2 "))
	}
	sendResponse(w, item, tokens)
}

// pathAfter is the path after marker in a request body's text: the word
// after it, up to a quote or backslash of the JSON around it.
func pathAfter(text, marker string) string {
	w := wordAfter(text, marker)
	if i := strings.IndexAny(w, `"\`); i >= 0 {
		w = w[:i]
	}
	return strings.TrimRight(w, ".,")
}

// TestHarnessCodexCompaction makes Codex CLI compact for real (a small
// model_auto_compact_token_limit, a model reporting large usage): Codex
// summarises the history locally, runs PostCompact (lineage drops the
// session's state) and SessionStart again (lineage's start, anew). After
// the compaction every request carries the root AGENTS.md once (Codex's
// own loading) and lineage's rules once; web/AGENTS.md, named before the
// compaction, is named again after the next patch there (the model lost
// it). The session recorded live by the hooks holds the compaction as a
// compress summary.
func TestHarnessCodexCompaction(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	srv := newModelServer(t, compactionHandler)
	home := t.TempDir()
	codexHome := fakeCodexHome(t, home, srv.url, "model_auto_compact_token_limit = 20000\n")
	env := baseEnv(home, "CODEX_HOME="+codexHome, "FAKE_API_KEY=sk-fake")
	codex := filepath.Join(modules, "@openai", "codex", "bin", "codex.js")
	runHarness(t, home, env, lineage, "hook", "install", "codex", "--record")
	repo := hookRepo(t, "AGENTS.md")
	out := runHarness(t, repo, env, "node", codex, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "--sandbox", "workspace-write",
		"LINEAGE-PATCH web/new.ts LINEAGE-PATCH2 web/second.ts")
	var before, after []string
	compacted := false
	for _, b := range srv.requests("/responses") {
		switch {
		case strings.Contains(b, codexCompactPrompt):
			compacted = true
		case strings.Contains(b, "SUMMARY-MARK"):
			after = append(after, b)
		default:
			before = append(before, b)
		}
	}
	if !compacted || len(before) == 0 || len(after) < 2 {
		t.Fatalf("Codex made %d requests before a compaction (compacted: %v) and %d after it, want the patch, the compaction, the second patch and its result\n%s",
			len(before), compacted, len(after), out)
	}
	web := filepath.Join(repo, "web", "AGENTS.md") + " (mtime: "
	for i, b := range after {
		if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
			t.Errorf("request %d after the compaction holds the root AGENTS.md text %d times, want once", i, n)
		}
		if n := strings.Count(b, "AGENTS.md in this session:"); n != 1 {
			t.Errorf("request %d after the compaction holds lineage's rules %d times, want once:\n%.3000s", i, n, b)
		}
		if !strings.Contains(b, "Codex CLI loaded "+filepath.Join(repo, "AGENTS.md")+" itself") || strings.Contains(b, "Instructions from: ") {
			t.Errorf("request %d after the compaction: the start does not say Codex loaded the root AGENTS.md, or sends a body", i)
		}
	}
	if strings.Contains(after[0], web) {
		t.Errorf("the first request after the compaction names web/AGENTS.md before a tool touched web/ again")
	}
	if n := strings.Count(after[len(after)-1], web); n != 1 {
		t.Errorf("after the patch in web/ that followed the compaction, web/AGENTS.md is named %d times, want once", n)
	}
	id := checkRecorded(t, home, env, lineage, "codex", "LINEAGE-PATCH", "message/user: LINEAGE-PATCH web/new.ts", "tool_call/assistant: apply_patch(")
	log := lineageIn(t, home, env, lineage, "sessions", "log", id, "-n", "1000")
	if !strings.Contains(log, " compress ..") || !strings.Contains(log, "— compaction ") {
		t.Errorf("the recorded session does not hold the compaction as a compress summary:\n%s", log)
	}
}
