package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// firstUserText is the raw content of the conversation's first user
// message (opencode sends a custom OpenAI-compatible provider Chat
// Completions requests, as Copilot CLI does).
func (r completionsRequest) firstUserText() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return string(m.Content)
		}
	}
	return ""
}

// chatHandler plays the model for opencode: a first user turn holding
// "LINEAGE-READ <path>" reads path with opencode's read tool; with
// "LINEAGE-TASK <path>" too, it then starts a task subagent told to read
// path; then "Done.". Anything else (the title request too) is answered
// "Done.". Answers stream, as opencode asks.
func chatHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	var req completionsRequest
	json.Unmarshal(body, &req)
	first := req.firstUserText()
	read := strings.Trim(wordAfter(first, "LINEAGE-READ "), `"\`)
	task := strings.Trim(wordAfter(first, "LINEAGE-TASK "), `"\`)
	delta := map[string]any{"role": "assistant", "content": "Done."}
	finish := "stop"
	call := func(id, name string, args map[string]any) {
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": id, "type": "function",
			"function": map[string]any{"name": name, "arguments": jsonString(args)}}}}
		finish = "tool_calls"
	}
	switch {
	case read != "" && req.count("tool") == 0 && req.hasTool("read"):
		call("call_read1", "read", map[string]any{"filePath": read})
	case task != "" && req.count("tool") == 1 && req.hasTool("task"):
		call("call_task1", "task", map[string]any{"description": "Read a file", "prompt": "LINEAGE-READ " + task, "subagent_type": "general"})
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(d map[string]any, finish any, usage any) {
		c := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		fmt.Fprintf(w, "data: %s\n\n", jsonString(c))
	}
	chunk(delta, nil, nil)
	chunk(map[string]any{}, finish, map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// opencodeHome is a home directory for opencode on the fake server: its
// global config names a custom OpenAI-compatible provider there, and its
// config directory's dependencies are declared installed (opencode
// installs @opencode-ai/plugin from npm into every config directory that
// lacks it, and waits for that before it loads a plugin).
func opencodeHome(t *testing.T, url string) string {
	home := t.TempDir()
	config := map[string]any{
		"$schema": "https://opencode.ai/config.json", "model": "fake/fake-model", "autoupdate": false, "share": "disabled",
		"provider": map[string]any{"fake": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-test"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake", "tool_call": true}}}},
	}
	deps := map[string]any{"@opencode-ai/plugin": "*"}
	platformtest.WriteTree(t, filepath.Join(home, ".config", "opencode"), map[string]string{
		"opencode.json":              jsonString(config),
		"package.json":               jsonString(map[string]any{"dependencies": deps}),
		"package-lock.json":          jsonString(map[string]any{"packages": map[string]any{"": map[string]any{"dependencies": deps}}}),
		"node_modules/.lineage-test": "",
	})
	return home
}

func TestHarnessOpencode(t *testing.T) {
	modules := harnessModules(t)
	// The harness set pins opencode's Linux x64 program package (what
	// opencode-ai installs there); an install of opencode-ai has it too.
	bin := ""
	for _, p := range []string{filepath.Join(modules, "opencode-linux-x64", "bin", "opencode"), filepath.Join(modules, "opencode-ai", "bin", "opencode.exe")} {
		if _, err := os.Stat(p); err == nil && bin == "" {
			bin = p
		}
	}
	if bin == "" {
		t.Skip("LINEAGE_HARNESSES has no opencode program (opencode-linux-x64: npm ci hooks/testdata/harnesses again, on Linux x64)")
	}
	lineage := lineageBinary(t)
	srv := newModelServer(t, chatHandler)
	home := opencodeHome(t, srv.url)
	env := baseEnv(home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1")
	runHarness(t, home, env, lineage, "hook", "install", "opencode")

	// The root AGENTS.md (opencode loads it), a rule opencode does not
	// load (lineage sends it) and a rule the project's opencode.jsonc lists
	// in its instructions setting (opencode loads it) reach every request
	// once; web/AGENTS.md, which opencode's read tool attaches, once after
	// the read, and lineage never names it.
	repo := hookRepo(t, "AGENTS.md")
	platformtest.WriteTree(t, repo, map[string]string{
		".claude/rules/style.md":  "Rule RULEMARK: tabs, not spaces.\n",
		".claude/rules/naming.md": "Rule NAMEMARK: short names.\n",
		"opencode.jsonc":          "{\n  // the team's rules\n  \"instructions\": [\".claude/rules/naming.md\",],\n}\n",
	})
	app := filepath.Join(repo, "web", "src", "app.ts")
	out := runHarness(t, repo, env, bin, "run", "LINEAGE-READ "+app+" LINEAGE-TASK "+app)
	// The main conversation (its first turn names the task) and the
	// subagent's (its prompt only names the read).
	var main, sub []string
	for _, b := range srv.requests("/chat/completions") {
		var req completionsRequest
		if json.Unmarshal([]byte(b), &req) != nil || !strings.Contains(req.firstUserText(), "LINEAGE-READ") || !req.hasTool("read") {
			continue
		}
		if strings.Contains(req.firstUserText(), "LINEAGE-TASK") {
			main = append(main, b)
		} else {
			sub = append(sub, b)
		}
	}
	if len(main) < 2 || len(sub) < 2 {
		t.Fatalf("opencode made %d requests of the conversation and %d of the subagent's, want the read and its result in each\n%s", len(main), len(sub), out)
	}
	web := filepath.Join(repo, "web", "AGENTS.md")
	for name, conv := range map[string][]string{"main": main, "subagent": sub} {
		for i, b := range conv {
			for _, mark := range []string{"ROOTMARK-AGENTS.md", "RULEMARK", "NAMEMARK"} {
				if n := strings.Count(b, mark); n != 1 {
					t.Errorf("%s request %d holds %s %d times, want once", name, i, mark, n)
				}
			}
		}
		if strings.Contains(conv[0], "WEBMARK") || strings.Contains(conv[0], web) {
			t.Errorf("%s: web/AGENTS.md reached the model before the read", name)
		}
		last := conv[len(conv)-1]
		if n := strings.Count(last, "WEBMARK-AGENTS.md"); n != 1 {
			t.Errorf("%s: after the read, web/AGENTS.md's text is there %d times, want once (opencode attaches it)", name, n)
		}
		if strings.Contains(last, web+" (mtime: ") {
			t.Errorf("%s: lineage named web/AGENTS.md, which opencode attached to the read itself:\n%.3000s", name, last)
		}
		if !strings.Contains(conv[0], "opencode loaded "+filepath.Join(repo, "AGENTS.md")+", "+filepath.Join(repo, ".claude", "rules", "naming.md")+" itself") {
			t.Errorf("%s: the start text does not say opencode loaded the root AGENTS.md:\n%.3000s", name, conv[0])
		}
	}
	// The subagent (a child session) has its own state under its parent's.
	states, _ := filepath.Glob(filepath.Join(home, ".state", "lineage", "sessions", "opencode-*@*.json"))
	if len(states) != 1 {
		t.Errorf("subagent states %q, want one opencode-<session>@<child>.json", states)
	}
}
