package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// The harness tests run the real Claude Code, Codex CLI and Gemini CLI
// programs from npm (hooks/testdata/harnesses/package.json, installed by
// .ci/run into a cache outside the repository; LINEAGE_HARNESSES is its
// node_modules) against a fake model server on 127.0.0.1 that records
// every request body, with lineage's hooks installed as the docs say, and
// assert on what reached the model.

// harnessModules returns the node_modules directory of the harnesses, or
// skips the test.
func harnessModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LINEAGE_HARNESSES")
	if dir == "" {
		t.Skip("LINEAGE_HARNESSES is not set: npm ci hooks/testdata/harnesses into a cache and point it at its node_modules (.ci/run does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("LINEAGE_HARNESSES is set but node is not on PATH: %v", err)
	}
	return dir
}

// modelServer is a fake model API on 127.0.0.1: it records each request
// body and answers with the next scripted turn of the conversation the
// request belongs to.
type modelServer struct {
	t      *testing.T
	url    string
	mu     sync.Mutex
	bodies []string
	paths  []string
}

func newModelServer(t *testing.T, handler func(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte)) *modelServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &modelServer{t: t, url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		m.mu.Lock()
		m.bodies = append(m.bodies, string(body))
		m.paths = append(m.paths, r.Method+" "+r.URL.Path)
		m.mu.Unlock()
		handler(m, w, r, body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

// requests returns the recorded request bodies whose path contains part.
func (m *modelServer) requests(part string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for i, b := range m.bodies {
		if strings.Contains(m.paths[i], part) {
			out = append(out, b)
		}
	}
	return out
}

func (m *modelServer) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodies, m.paths = nil, nil
}

// countIn counts the requests (bodies) of the model conversation that
// hold s, each counted once, and the largest number of times one body
// holds it.
func countIn(bodies []string, s string) (requests, most int) {
	for _, b := range bodies {
		if n := strings.Count(b, s); n > 0 {
			requests++
			most = max(most, n)
		}
	}
	return
}

// runHarness runs a harness program with a bounded time, in dir, with env.
func runHarness(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = strings.NewReader("")
	// A harness's own children may hold its output open after it was
	// killed: stop waiting for them.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out\n%s", filepath.Base(name), strings.Join(args, " "), out.String())
	}
	if err != nil {
		t.Logf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// baseEnv is a clean environment for a harness: HOME and the state dir in
// the test's directory, node on PATH, no proxy.
func baseEnv(home string, extra ...string) []string {
	path := os.Getenv("PATH")
	return append([]string{
		"HOME=" + home,
		"PATH=" + path,
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=true",
	}, extra...)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ---- Anthropic Messages API (Claude Code) ----

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// firstUserText is the text of the conversation's first user message.
func (r anthropicRequest) firstUserText() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				return s
			}
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			json.Unmarshal(m.Content, &blocks)
			text := ""
			for _, b := range blocks {
				if b.Type == "text" {
					text += b.Text + "\n"
				}
			}
			return text
		}
	}
	return ""
}

// toolResults counts the tool results in the conversation.
func (r anthropicRequest) toolResults() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "user" {
			n += strings.Count(string(m.Content), `"tool_result"`)
		}
	}
	return n
}

// lastUserTurn is the last user message's text blocks, and whether it
// carries a tool result.
func (r anthropicRequest) lastUserTurn() (text string, toolResult bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s, false
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text += b.Text + "\n"
			case "tool_result":
				toolResult = true
			}
		}
		return text, toolResult
	}
	return "", false
}

func (r anthropicRequest) hasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// wordAfter returns the word after marker in text ("" when absent).
func wordAfter(text, marker string) string {
	i := strings.Index(text, marker)
	if i < 0 {
		return ""
	}
	f := strings.Fields(text[i+len(marker):])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// anthropicHandler plays the model. The conversation's first user turn
// says what to do: "LINEAGE-READ <path>" reads path (first tool call);
// "LINEAGE-TASK <path>" then starts a subagent told to read path (next
// tool call); "LINEAGE-REMEMBER <word>" saves a memory through lineage's
// MCP memory_save (first tool call); then "Done.".
func anthropicHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Path, "count_tokens") {
			io.WriteString(w, `{"input_tokens": 100}`)
			return
		}
		io.WriteString(w, `{}`)
		return
	}
	var req anthropicRequest
	json.Unmarshal(body, &req)
	first, done := req.firstUserText(), req.toolResults()
	read, task, mcpTarget := wordAfter(first, "LINEAGE-READ "), wordAfter(first, "LINEAGE-TASK "), wordAfter(first, "LINEAGE-MCP ")
	var block map[string]any
	stop := "end_turn"
	switch {
	case read != "" && done == 0 && req.hasTool("Read"):
		block = map[string]any{"type": "tool_use", "id": "toolu_read1", "name": "Read", "input": map[string]any{"file_path": read}}
	case wordAfter(first, "LINEAGE-REMEMBER ") != "" && done == 0 && req.hasTool("mcp__lineage__memory_save"):
		block = map[string]any{"type": "tool_use", "id": "toolu_mem1", "name": "mcp__lineage__memory_save", "input": map[string]any{
			"text": wordAfter(first, "LINEAGE-REMEMBER ") + " the API listens on port 7411"}}
	case mcpTarget != "" && done == 1 && req.hasTool("mcp__lineage__instructions_resolve"):
		block = map[string]any{"type": "tool_use", "id": "toolu_mcp1", "name": "mcp__lineage__instructions_resolve", "input": map[string]any{"paths": []string{mcpTarget}}}
	case task != "" && done == 1 && (req.hasTool("Task") || req.hasTool("Agent")):
		name := "Task"
		if !req.hasTool("Task") {
			name = "Agent"
		}
		block = map[string]any{"type": "tool_use", "id": "toolu_task1", "name": name, "input": map[string]any{
			"description": "Read a file", "prompt": "LINEAGE-READ " + task, "subagent_type": "general-purpose"}}
	}
	if block != nil {
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": "Done."}
	}
	msg := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	if !req.Stream {
		msg["content"] = []any{block}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(event string, data any) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, jsonString(data)) }
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	send("message_start", map[string]any{"type": "message_start", "message": start})
	if block["type"] == "tool_use" {
		input := block["input"]
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": jsonString(input)}})
	} else {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": block["text"]}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// claudeRun is one Claude Code binary under test.
type claudeRun struct {
	name, bin string
	// agentsMd: this release loads AGENTS.md itself.
	agentsMd bool
}

func claudes(t *testing.T, modules string) []claudeRun {
	return []claudeRun{
		{"2.1.332", filepath.Join(modules, "@anthropic-ai", "claude-code", "bin", "claude.exe"), true},
		{"2.1.197", filepath.Join(modules, "claude-code-2.1.197", "bin", "claude.exe"), false},
	}
}

// claudeEnv: Claude Code on the fake server, its config in the test's
// directory, lineage's hook installed at user scope in it, and the
// harness's own bin directory first on PATH (where the hook finds its
// version).
func claudeEnv(t *testing.T, c claudeRun, home, url string) []string {
	env := baseEnv(home,
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL="+url,
		"ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(c.bin) + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return env
}

// claudeBinDir is a directory holding "claude", linked to c's program, as
// npm's node_modules/.bin would.
func claudeBinDir(t *testing.T, c claudeRun) string {
	dir := t.TempDir()
	if err := os.Symlink(c.bin, filepath.Join(dir, "claude")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hookRepo is the repository every harness test works in: a root
// AGENTS.md and a nested one, each with a marker that shows where its text
// went.
func hookRepo(t *testing.T, names ...string) string {
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "web/src/app.ts": "export const x = 1;\n", "api/h.go": "package api\n"}
	for _, n := range names {
		files[n] = "Root rule ROOTMARK-" + n + ": run the tests before every commit.\n"
		files["web/"+n] = "Web rule WEBMARK-" + n + ": strict TypeScript.\n"
	}
	platformtest.WriteTree(t, dir, files)
	return dir
}

// claudeConversation returns the /v1/messages requests whose first user
// turn holds marker (Claude Code's own side requests — titles, summaries —
// hold it elsewhere or not at all).
func claudeConversation(srv *modelServer, marker string) []string {
	var out []string
	for _, b := range srv.requests("/v1/messages") {
		var req anthropicRequest
		if json.Unmarshal([]byte(b), &req) == nil && strings.Contains(req.firstUserText(), marker) && req.hasTool("Read") {
			out = append(out, b)
		}
	}
	return out
}

func TestHarnessClaudeCode(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	var kept fixtureSet
	defer kept.write(t, "claude")
	for _, c := range claudes(t, modules) {
		t.Run(c.name, func(t *testing.T) {
			srv := newModelServer(t, anthropicHandler)
			home := t.TempDir()
			defer kept.add(t, "claude-"+packageVersion(t, filepath.Dir(filepath.Dir(c.bin))), home, filepath.Join(home, ".claude", "projects"), lineage)
			env := claudeEnv(t, c, home, srv.url)
			for i, kv := range env {
				if strings.HasPrefix(kv, "PATH=") {
					env[i] = "PATH=" + claudeBinDir(t, c) + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
				}
			}
			runHarness(t, home, env, lineage, "hook", "install", "claude", "--record")
			claude := func(t *testing.T, dir string, args ...string) {
				t.Helper()
				runHarness(t, dir, env, c.bin, append([]string{"-p", "--output-format", "text"}, args...)...)
			}

			// The root AGENTS.md text reaches the model once in every
			// request; the nested one is named after the first Read; a
			// subagent reading there is told too.
			repo := hookRepo(t, "AGENTS.md")
			app := filepath.Join(repo, "web", "src", "app.ts")
			session := "6f1c7a52-3b1e-4d4f-9a51-0c6d3d7e8a01"
			claude(t, repo, "--session-id", session, "LINEAGE-READ "+app+" LINEAGE-TASK "+app)
			main := claudeConversation(srv, "LINEAGE-TASK")
			if len(main) < 2 {
				t.Fatalf("the main conversation made %d requests, want the Read and its result", len(main))
			}
			for i, b := range main {
				if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
					t.Errorf("request %d of the main conversation holds the root AGENTS.md text %d times, want once", i, n)
				}
			}
			web := filepath.Join(repo, "web", "AGENTS.md") + " (mtime: "
			if strings.Contains(main[0], web) {
				t.Errorf("web/AGENTS.md named before any tool touched web/")
			}
			// After the Read, web/AGENTS.md reached the model once: Claude
			// Code attached it (2.1.281 on), or lineage named it.
			if n := strings.Count(main[1], "WEBMARK-AGENTS.md") + strings.Count(main[1], web); n != 1 {
				t.Errorf("after the Read, web/AGENTS.md's text plus lineage's naming of it appear %d times, want once:\n%.3000s", n, main[1])
			}
			if c.agentsMd && strings.Contains(main[0], "Instructions from: "+filepath.Join(repo, "AGENTS.md")) {
				t.Errorf("Claude Code %s loads AGENTS.md itself, yet lineage sent its body", c.name)
			}
			var sub []string
			for _, b := range claudeConversation(srv, "LINEAGE-READ") {
				if !strings.Contains(b, "LINEAGE-TASK") {
					sub = append(sub, b)
				}
			}
			if len(sub) < 2 {
				t.Fatalf("the subagent made %d requests, want its Read and the result", len(sub))
			}
			if last := sub[len(sub)-1]; strings.Count(last, "WEBMARK-AGENTS.md")+strings.Count(last, web) != 1 {
				t.Errorf("the subagent's Read in web/ did not bring web/AGENTS.md exactly once:\n%.3000s", last)
			}

			// Resume after web/AGENTS.md changed: the resume diff names it.
			srv.reset()
			platformtest.WriteTree(t, repo, map[string]string{"web/AGENTS.md": "Web rule WEBMARK-AGENTS.md: strict TypeScript, no any.\n"})
			claude(t, repo, "--resume", session, "LINEAGE-RESUMED")
			var resumed []string
			for _, b := range srv.requests("/v1/messages") {
				if strings.Contains(b, "LINEAGE-RESUMED") && strings.Contains(b, "LINEAGE-TASK") {
					resumed = append(resumed, b)
				}
			}
			if len(resumed) == 0 || !strings.Contains(resumed[0], "session.resume.diff") || !strings.Contains(resumed[0], web) {
				t.Errorf("the resumed session was not told web/AGENTS.md changed (%d requests)", len(resumed))
				if len(resumed) > 0 {
					i := strings.Index(resumed[0], "LINEAGE-RESUMED")
					t.Logf("%s", resumed[0][max(0, i-3000):])
				}
			}

			// Recorded live by the hooks: in the sessions store with its
			// turns and the resumed one; an import adds nothing.
			if got := checkRecorded(t, home, env, lineage, "claude", "LINEAGE-TASK", "message/user: LINEAGE-READ", "message/user: LINEAGE-RESUMED"); got != session {
				t.Errorf("recorded session %s, want %s", got, session)
			}

			// A CLAUDE.md repo with the hook resolving CLAUDE.md: Claude Code
			// loads the root one itself, lineage adds no second copy and names
			// the nested one after a Read there.
			srv.reset()
			crepo := hookRepo(t, "CLAUDE.md")
			runHarness(t, home, env, lineage, "hook", "install", "claude", "--file-names", "CLAUDE.md,AGENTS.md")
			capp := filepath.Join(crepo, "web", "src", "app.ts")
			claude(t, crepo, "LINEAGE-READ "+capp)
			cmain := claudeConversation(srv, "LINEAGE-READ")
			if len(cmain) < 2 {
				t.Fatalf("CLAUDE.md repo: %d requests", len(cmain))
			}
			for i, b := range cmain {
				if n := strings.Count(b, "ROOTMARK-CLAUDE.md"); n != 1 {
					t.Errorf("CLAUDE.md repo, request %d holds the root CLAUDE.md text %d times, want once", i, n)
				}
			}
			// Claude Code attaches web/CLAUDE.md to the Read itself: lineage
			// does not name it.
			if n := strings.Count(cmain[1], "WEBMARK-CLAUDE.md") + strings.Count(cmain[1], filepath.Join(crepo, "web", "CLAUDE.md")+" (mtime: "); n != 1 {
				t.Errorf("CLAUDE.md repo: after the Read, web/CLAUDE.md's text plus its naming appear %d times, want once:\n%.3000s", n, cmain[1])
			}
			runHarness(t, home, env, lineage, "hook", "install", "claude")

			// Hook and MCP together: the hook names web/AGENTS.md after the
			// Read; the MCP resolve of a path in web/ does not name it again.
			if c.agentsMd {
				return // 2.1.332 keeps MCP tools behind its tool search
			}
			srv.reset()
			runHarness(t, home, env, lineage, "mcp", "install", "claude")
			mrepo := hookRepo(t, "AGENTS.md")
			mapp := filepath.Join(mrepo, "web", "src", "app.ts")
			claude(t, mrepo, "LINEAGE-READ "+mapp+" LINEAGE-MCP "+filepath.Join(mrepo, "web", "src", "b.ts"), "--allowedTools", "mcp__lineage__instructions_resolve")
			conv := claudeConversation(srv, "LINEAGE-MCP")
			if len(conv) < 3 {
				t.Fatalf("hook + MCP: %d requests, want the Read, the MCP call and its result", len(conv))
			}
			if last := conv[len(conv)-1]; !strings.Contains(last, "toolu_mcp1") || !strings.Contains(last, `targets`) {
				t.Fatalf("hook + MCP: the MCP resolve did not answer:\n%.3000s", last[max(0, strings.Index(last, "toolu_mcp1")-200):])
			}
			mweb := filepath.Join(mrepo, "web", "AGENTS.md") + " (mtime: "
			if n := strings.Count(conv[len(conv)-1], mweb); n != 1 {
				t.Errorf("hook + MCP: web/AGENTS.md named %d times, want once:\n%.4000s", n, conv[len(conv)-1])
			}
		})
	}
}

// ---- OpenAI Responses API (Codex CLI) ----

// codexResponses reads a Codex CLI request to /responses; any other
// path (its model list) is answered empty here and reported !ok.
func codexResponses(w http.ResponseWriter, r *http.Request, body []byte) (codexRequest, bool) {
	var req codexRequest
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[],"models":[]}`)
		return req, false
	}
	json.Unmarshal(body, &req)
	return req, true
}

// responsesHandler plays the model for Codex CLI: a conversation whose
// first user turn says "LINEAGE-PATCH <relative path>" gets an apply_patch
// adding that file, then "Done.".
func responsesHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	req, ok := codexResponses(w, r, body)
	if !ok {
		return
	}
	text := string(body)
	calls := strings.Count(text, `"type":"custom_tool_call_output"`) + strings.Count(text, `"type":"function_call_output"`)
	target := wordAfter(strings.ReplaceAll(text, `\n`, " "), "LINEAGE-PATCH ")
	target = strings.TrimRight(target, `".,\`)
	var item map[string]any
	if target != "" && calls == 0 {
		item = req.patch(target)
	}
	sendResponse(w, item, 10)
}

type codexRequest struct {
	Input []json.RawMessage `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// patch is an apply_patch call adding target, in the form the request's
// apply_patch tool takes (nil when it has none).
func (req codexRequest) patch(target string) map[string]any {
	patch := "*** Begin Patch\n*** Add File: " + target + "\n+// added\n*** End Patch\n"
	for _, tl := range req.Tools {
		if tl.Name != "apply_patch" {
			continue
		}
		if tl.Type == "custom" {
			return map[string]any{"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_patch1", "name": "apply_patch", "input": patch, "status": "completed"}
		}
		return map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_patch1", "name": "apply_patch", "arguments": jsonString(map[string]any{"input": patch}), "status": "completed"}
	}
	return nil
}

// sendResponse streams one Responses API answer: item (nil: the
// assistant's "Done."), reporting inputTokens of usage.
func sendResponse(w http.ResponseWriter, item map[string]any, inputTokens int) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(data map[string]any) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], jsonString(data)) }
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_fake"}})
	if item == nil {
		item = assistantText("Done.")
	}
	send(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_fake",
		"usage": map[string]any{"input_tokens": inputTokens, "input_tokens_details": nil, "output_tokens": 5, "output_tokens_details": nil, "total_tokens": inputTokens + 5}}})
}

func assistantText(text string) map[string]any {
	return map[string]any{"type": "message", "role": "assistant", "id": "msg_fake", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func TestHarnessCodex(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	srv := newModelServer(t, responsesHandler)
	home := t.TempDir()
	codexHome := fakeCodexHome(t, home, srv.url)
	env := baseEnv(home, "CODEX_HOME="+codexHome, "FAKE_API_KEY=sk-fake")
	codex := filepath.Join(modules, "@openai", "codex", "bin", "codex.js")
	runHarness(t, home, env, lineage, "hook", "install", "codex", "--record")
	// Installed but not trusted: hook status says so (and exits 1); the
	// run below bypasses trust as automation that vets hooks does.
	if out := runHarness(t, home, env, lineage, "hook", "status", "codex"); !strings.Contains(out, "will NOT run: not trusted") {
		t.Errorf("hook status of an untrusted Codex hook:\n%s", out)
	}
	repo := hookRepo(t, "AGENTS.md")
	runHarness(t, repo, env, "node", codex, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "--sandbox", "workspace-write", "LINEAGE-PATCH web/new.ts")
	reqs := srv.requests("/responses")
	if len(reqs) < 2 {
		t.Fatalf("Codex made %d model requests, want the patch and its result", len(reqs))
	}
	for i, b := range reqs {
		if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
			t.Errorf("request %d holds the root AGENTS.md text %d times, want once (Codex loads it itself)", i, n)
		}
	}
	web := filepath.Join(repo, "web", "AGENTS.md") + " (mtime: "
	if !strings.Contains(reqs[0], "Codex CLI loaded "+filepath.Join(repo, "AGENTS.md")+" itself") || strings.Contains(reqs[0], web) {
		t.Errorf("the start does not say Codex loaded the root AGENTS.md, or names web/ early:\n%.3000s", reqs[0])
	}
	if !strings.Contains(reqs[1], `type=\"agents.resolve.paths\"`) || !strings.Contains(reqs[1], web) {
		t.Errorf("the request after apply_patch in web/ does not name web/AGENTS.md:\n%.3000s", reqs[1])
	}
	checkRecorded(t, home, env, lineage, "codex", "LINEAGE-PATCH", "message/user: LINEAGE-PATCH web/new.ts")
	var kept fixtureSet
	kept.add(t, "codex-"+packageVersion(t, filepath.Join(modules, "@openai", "codex")), home, filepath.Join(codexHome, "sessions"), lineage)
	kept.write(t, "codex")
}

// ---- Gemini API (Gemini CLI) ----

// geminiHandler plays the model for Gemini CLI: a conversation whose first
// user turn says "LINEAGE-READ <path>" gets a read_file of path, then
// "Done.". Side requests (routing, next speaker, counting) get plain
// answers.
func geminiHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	path := r.URL.Path
	if strings.HasSuffix(path, ":countTokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens": 100}`)
		return
	}
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string         `json:"text"`
				FunctionCall     map[string]any `json:"functionCall"`
				FunctionResponse map[string]any `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		GenerationConfig map[string]any `json:"generationConfig"`
	}
	json.Unmarshal(body, &req)
	first, responses, hasRead := "", 0, false
	for i, c := range req.Contents {
		for _, p := range c.Parts {
			if i == 0 || first == "" && c.Role == "user" {
				first += p.Text + "\n"
			}
			if p.FunctionResponse != nil {
				responses++
			}
		}
	}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			hasRead = hasRead || f.Name == "read_file"
		}
	}
	var part map[string]any
	target := ""
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if w := wordAfter(p.Text, "LINEAGE-READ "); w != "" && c.Role == "user" {
				target = w
			}
		}
	}
	switch {
	case target != "" && responses == 0 && hasRead:
		part = map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"file_path": target}}}
	case req.GenerationConfig["responseJsonSchema"] != nil || req.GenerationConfig["responseSchema"] != nil || req.GenerationConfig["responseMimeType"] == "application/json":
		part = map[string]any{"text": `{"reasoning": "done", "next_speaker": "user", "model_choice": "flash", "complexity_reasoning": "simple", "complexity_score": 1}`}
	default:
		part = map[string]any{"text": "Done."}
	}
	resp := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}
	if strings.Contains(path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", jsonString(resp))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, jsonString(resp))
}

func TestHarnessGemini(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	srv := newModelServer(t, geminiHandler)
	home := t.TempDir()
	env := baseEnv(home, "GEMINI_CLI_HOME="+home, "GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL="+srv.url,
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true")
	gemini := filepath.Join(modules, "@google", "gemini-cli", "bundle", "gemini.js")
	var kept fixtureSet
	defer kept.write(t, "gemini")
	defer kept.add(t, "gemini-"+packageVersion(t, filepath.Join(modules, "@google", "gemini-cli")), home, filepath.Join(home, ".gemini", "tmp"), lineage)
	platformtest.WriteTree(t, home, map[string]string{".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}}` + "\n"})
	main := func(marker string) []string {
		var out []string
		for _, b := range srv.requests(":streamGenerateContent") {
			if strings.Contains(b, marker) && strings.Contains(b, `"read_file"`) {
				out = append(out, b)
			}
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		files []string
		flags []string
	}{
		// Gemini CLI loads GEMINI.md, not AGENTS.md: lineage sends the body.
		{"AGENTS.md", []string{"AGENTS.md"}, nil},
		// A GEMINI.md repo with the hook resolving GEMINI.md: Gemini loads
		// it; lineage sends no second copy and names the nested one.
		{"GEMINI.md", []string{"GEMINI.md"}, []string{"--file-names", "GEMINI.md,AGENTS.md"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv.reset()
			runHarness(t, home, env, lineage, append([]string{"hook", "install", "gemini", "--record"}, tt.flags...)...)
			repo := hookRepo(t, tt.files...)
			app := filepath.Join(repo, "web", "src", "app.ts")
			runHarness(t, repo, env, "node", gemini, "-p", "LINEAGE-READ "+app, "--output-format", "text")
			reqs := main("LINEAGE-READ")
			if len(reqs) < 2 {
				t.Fatalf("Gemini CLI made %d main requests, want the read and its result", len(reqs))
			}
			for i, b := range reqs {
				if n := strings.Count(b, "ROOTMARK-"+tt.name); n != 1 {
					t.Errorf("request %d holds the root %s text %d times, want once", i, tt.name, n)
				}
			}
			web := filepath.Join(repo, "web", tt.name) + " (mtime: "
			if strings.Contains(reqs[0], web) {
				t.Errorf("web/%s named before any tool touched web/", tt.name)
			}
			// After read_file in web/ the nested file reached the model
			// once: Gemini CLI attached GEMINI.md itself (its just-in-time
			// context), lineage named AGENTS.md.
			last := reqs[len(reqs)-1]
			if n := strings.Count(last, "WEBMARK-"+tt.name) + strings.Count(last, web); n != 1 {
				t.Errorf("after read_file in web/, web/%s's text plus lineage's naming of it appear %d times, want once:\n%.3000s", tt.name, n, last)
			}
			if named := strings.Contains(last, web); named != (tt.name == "AGENTS.md") {
				t.Errorf("lineage named web/%s: %v", tt.name, named)
			}
			checkRecorded(t, repo, env, lineage, "gemini", "LINEAGE-READ "+app, "message/user: LINEAGE-READ", "tool_call/assistant: read_file(")
		})
	}
}

// fakeCodexHome writes Codex CLI's config under home/.codex: the fake
// model server at url as its only provider (FAKE_API_KEY its key), with
// the top-level keys of extra, and returns that folder for CODEX_HOME.
func fakeCodexHome(t *testing.T, home, url string, extra ...string) string {
	t.Helper()
	codexHome := filepath.Join(home, ".codex")
	platformtest.WriteTree(t, codexHome, map[string]string{"config.toml": `model = "gpt-5.5"
model_provider = "fake"
` + strings.Join(extra, "") + `

[model_providers.fake]
name = "fake"
base_url = "` + url + `/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
`})
	return codexHome
}
