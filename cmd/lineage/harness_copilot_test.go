package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// ---- OpenAI Chat Completions API (GitHub Copilot CLI with BYOK) ----

type completionsRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// userText is the text of the conversation's user messages, joined.
func (r completionsRequest) userText() string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			b.WriteString(s + "\n")
			continue
		}
		var parts []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(m.Content, &parts)
		for _, p := range parts {
			b.WriteString(p.Text + "\n")
		}
	}
	return b.String()
}

func (r completionsRequest) count(role string) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == role {
			n++
		}
	}
	return n
}

func (r completionsRequest) hasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// completionsHandler plays the model for Copilot CLI: a conversation whose
// user turns say "LINEAGE-READ <path>" views path; one that also says
// "LINEAGE-TASK <path>" then runs a subagent (its task tool) told to view
// path; then "Done.". Requests without tools (titles) get "Done.". A
// conversation saying "LINEAGE-BIG" reports a prompt near the provider's
// limit.
func completionsHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[]}`)
		return
	}
	var req completionsRequest
	json.Unmarshal(body, &req)
	text, done := req.userText(), req.count("tool")
	read, task := wordAfter(text, "LINEAGE-READ "), wordAfter(text, "LINEAGE-TASK ")
	var call map[string]any
	switch {
	case read != "" && done == 0 && req.hasTool("view"):
		call = map[string]any{"name": "view", "arguments": jsonString(map[string]any{"path": read})}
	case task != "" && done == 1 && req.hasTool("task"):
		call = map[string]any{"name": "task", "arguments": jsonString(map[string]any{
			"description": "Read a file", "prompt": "LINEAGE-READ " + task, "agent_type": "general-purpose", "name": "reader"})}
	}
	delta, finish := map[string]any{"role": "assistant", "content": "Done."}, "stop"
	if call != nil {
		delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", done), "type": "function", "function": call}}}
		finish = "tool_calls"
	}
	tokens := 10
	if strings.Contains(text, "LINEAGE-BIG") {
		// Near COPILOT_PROVIDER_MAX_PROMPT_TOKENS: Copilot CLI compacts.
		tokens = 99000
	}
	usage := map[string]any{"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": delta["content"], "tool_calls": delta["tool_calls"]}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, jsonString(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage}))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, usage any) {
		fmt.Fprintf(w, "data: %s\n\n", jsonString(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, "usage": usage}))
	}
	chunk(delta, nil, nil)
	chunk(map[string]any{}, finish, usage)
	io.WriteString(w, "data: [DONE]\n\n")
}

// TestHarnessCopilot runs GitHub Copilot CLI with its own model provider
// (BYOK: the fake server, offline, no GitHub login) in a trusted folder
// whose .github/hooks/lineage.json is lineage's project install: the root
// AGENTS.md reaches the model once (Copilot CLI loads it; lineage's rules
// say so), the nested one once after a view in web/ (Copilot CLI attaches
// it; lineage names nothing), and a subagent gets lineage's start ahead
// of its prompt.
// copilotSetup: Copilot CLI (its npm loader) against a fake model, with
// lineage's hooks installed at project scope in a trusted repository.
func copilotSetup(t *testing.T) (srv *modelServer, env []string, repo, loader string) {
	t.Helper()
	modules := harnessModules(t)
	loader = filepath.Join(modules, "@github", "copilot", "npm-loader.js")
	if _, err := os.Stat(loader); err != nil {
		t.Skipf("@github/copilot is not installed in LINEAGE_HARNESSES (%v): npm ci hooks/testdata/harnesses again", err)
	}
	lineage := lineageBinary(t)
	srv = newModelServer(t, completionsHandler)
	home := t.TempDir()
	repo = hookRepo(t, "AGENTS.md")
	copilotHome := filepath.Join(home, ".copilot")
	platformtest.WriteTree(t, copilotHome, map[string]string{"config.json": jsonString(map[string]any{"trustedFolders": []string{repo}}) + "\n"})
	env = baseEnv(home, "COPILOT_HOME="+copilotHome, "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+srv.url+"/v1", "COPILOT_PROVIDER_API_KEY=sk-fake", "COPILOT_MODEL=gpt-4.1", "COPILOT_PROVIDER_MAX_PROMPT_TOKENS=100000")
	runHarness(t, home, env, lineage, "hook", "install", "copilot", "--scope", "project", "--cwd", repo, "--command", lineage)
	if out := runHarness(t, home, env, lineage, "hook", "status", "copilot", "--cwd", repo); !strings.Contains(out, "lineage.json: will run") {
		t.Errorf("hook status of a project install in a trusted folder:\n%s", out)
	}
	return srv, env, repo, loader
}

func TestHarnessCopilot(t *testing.T) {
	srv, env, repo, loader := copilotSetup(t)
	app := filepath.Join(repo, "web", "src", "app.ts")
	out := runHarness(t, repo, env, "node", loader, "-p", "LINEAGE-READ "+app+" LINEAGE-TASK "+app, "--allow-all-tools")
	var main, sub []string
	for _, b := range srv.requests("/chat/completions") {
		var req completionsRequest
		if json.Unmarshal([]byte(b), &req) != nil || !req.hasTool("view") {
			continue
		}
		switch text := req.userText(); {
		case strings.Contains(text, "LINEAGE-TASK"):
			main = append(main, b)
		case strings.Contains(text, "LINEAGE-READ"):
			sub = append(sub, b)
		}
	}
	if len(main) < 3 || len(sub) < 2 {
		t.Fatalf("Copilot CLI made %d main and %d subagent requests, want the view, the task and their results\n%s", len(main), len(sub), out)
	}
	for i, b := range append(main, sub...) {
		if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
			t.Errorf("request %d holds the root AGENTS.md text %d times, want once (Copilot CLI loads it itself)", i, n)
		}
	}
	loaded := "Copilot CLI loaded " + filepath.Join(repo, "AGENTS.md") + " itself"
	if !strings.Contains(main[0], jsonText(loaded)) || strings.Contains(main[0], "Instructions from: ") {
		t.Errorf("the start does not say Copilot CLI loaded the root AGENTS.md, or sends a body:\n%.3000s", main[0])
	}
	web := filepath.Join(repo, "web", "AGENTS.md") + " (mtime: "
	if strings.Contains(main[0], jsonText(web)) {
		t.Errorf("web/AGENTS.md named before any tool touched web/")
	}
	// After the view in web/, web/AGENTS.md reached the model once:
	// Copilot CLI attached it, lineage did not name it.
	for _, b := range []string{main[1], sub[len(sub)-1]} {
		if n := strings.Count(b, "WEBMARK-AGENTS.md") + strings.Count(b, jsonText(web)); n != 1 {
			t.Errorf("after the view in web/, web/AGENTS.md's text plus lineage's naming of it appear %d times, want once:\n%.3000s", n, b)
		}
	}
	// The subagent's prompt starts with lineage's start.
	if !strings.Contains(sub[0], jsonText("AGENTS.md in this session:")) || !strings.Contains(sub[0], jsonText(loaded)) {
		t.Errorf("the subagent did not get lineage's start:\n%.3000s", sub[0])
	}
	if n := strings.Count(main[len(main)-1], jsonText("AGENTS.md in this session:")); n != 1 {
		t.Errorf("the main conversation holds lineage's start %d times, want once", n)
	}
	// Resumed, without and after a compaction.
	copilotResumed(t, srv, env, repo, loader, wordAfter(out, "--resume="))
	copilotCompactResume(t, srv, env, repo, loader)
}

// copilotSummaryPrompt ends Copilot CLI 1.0.102's compaction request.
const copilotSummaryPrompt = "respond only with the summary text"

// copilotCompactResume: a session that Copilot CLI compacts (prompts near
// the provider's limit), then resumed: the resumed run's request holds the
// root AGENTS.md once and lineage's start once (Copilot CLI shows each
// run's own start answer at the head, outside the history; PreCompact's
// answer it does not read).
func copilotCompactResume(t *testing.T, srv *modelServer, env []string, repo, loader string) {
	srv.reset()
	out := runHarness(t, repo, env, "node", loader, "-p", "LINEAGE-BIG LINEAGE-READ "+filepath.Join(repo, "api", "h.go"), "--allow-all-tools")
	id := wordAfter(out, "--resume=")
	compacted := false
	for _, b := range srv.requests("/chat/completions") {
		compacted = compacted || strings.Contains(b, copilotSummaryPrompt)
	}
	if id == "" || !compacted {
		t.Fatalf("no session to resume (%q), or Copilot CLI did not compact (%d requests):\n%s", id, len(srv.requests("/chat/completions")), out)
	}
	copilotResumed(t, srv, env, repo, loader, id)
}

// copilotResumed resumes session id: its request holds the root AGENTS.md
// once and lineage's start once (each run of Copilot CLI shows only its
// own start's answer).
func copilotResumed(t *testing.T, srv *modelServer, env []string, repo, loader, id string) {
	t.Helper()
	if id == "" {
		t.Fatalf("no session id to resume")
	}
	srv.reset()
	out := runHarness(t, repo, env, "node", loader, "--resume="+id, "-p", "LINEAGE-AGAIN", "--allow-all-tools")
	var resumed []string
	for _, b := range srv.requests("/chat/completions") {
		if strings.Contains(b, "LINEAGE-AGAIN") && strings.Contains(b, `"view"`) {
			resumed = append(resumed, b)
		}
	}
	if len(resumed) == 0 {
		t.Fatalf("the resumed run made no request:\n%s", out)
	}
	b := resumed[0]
	if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
		t.Errorf("resumed %s: the root AGENTS.md text is there %d times, want once", id, n)
	}
	if n := strings.Count(b, jsonText("AGENTS.md in this session:")); n != 1 {
		var req completionsRequest
		json.Unmarshal([]byte(b), &req)
		t.Errorf("resumed %s: lineage's start is there %d times, want once:\n%.4000s", id, n, req.userText())
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	q := jsonString(s)
	return q[1 : len(q)-1]
}

// With --no-custom-instructions Copilot CLI loads no AGENTS.md: the hook
// sees the flag on its parent's command line and sends the root file's
// body itself, so it reaches the model once and is not said to be
// Copilot's.
func TestHarnessCopilotNoCustomInstructions(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the hook reads its parents' arguments on Linux and macOS only")
	}
	srv, env, repo, loader := copilotSetup(t)
	app := filepath.Join(repo, "web", "src", "app.ts")
	out := runHarness(t, repo, env, "node", loader, "-p", "LINEAGE-READ "+app, "--allow-all-tools", "--no-custom-instructions")
	var reqs []string
	for _, b := range srv.requests("/chat/completions") {
		if strings.Contains(b, "LINEAGE-READ") && strings.Contains(b, `"view"`) {
			reqs = append(reqs, b)
		}
	}
	if len(reqs) < 2 {
		t.Fatalf("Copilot CLI made %d requests, want the view and its result\n%s", len(reqs), out)
	}
	for i, b := range reqs {
		if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
			t.Errorf("request %d holds the root AGENTS.md text %d times, want once (lineage sends it)", i, n)
		}
	}
	if strings.Contains(reqs[0], jsonText("Copilot CLI loaded ")) {
		t.Errorf("the start says Copilot CLI loaded a file it did not:\n%.3000s", reqs[0])
	}
	// After the view in web/, lineage names web/AGENTS.md (Copilot CLI
	// attaches nothing): its text or its naming, once.
	web := filepath.Join(repo, "web", "AGENTS.md") + " (mtime: "
	last := reqs[len(reqs)-1]
	if n := strings.Count(last, "WEBMARK-AGENTS.md") + strings.Count(last, jsonText(web)); n != 1 {
		t.Errorf("after the view in web/, web/AGENTS.md's text plus lineage's naming of it appear %d times, want once:\n%.3000s", n, last)
	}
}
