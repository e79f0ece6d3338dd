package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/platformtest"
)

// geminiAgentHandler plays the model for a Gemini CLI session that
// delegates: a main conversation whose first user turn says
// "LINEAGE-AGENT <path>" calls invoke_agent (the generalist, told
// "LINEAGE-READ <path>"); the subagent reads path and then calls
// complete_task. Everything else is geminiHandler's.
func geminiAgentHandler(m *modelServer, w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string         `json:"text"`
				FunctionResponse map[string]any `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	has := func(name string) bool {
		for _, t := range req.Tools {
			for _, f := range t.FunctionDeclarations {
				if f.Name == name {
					return true
				}
			}
		}
		return false
	}
	agent, responses := "", 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if a := wordAfter(p.Text, "LINEAGE-AGENT "); a != "" && c.Role == "user" {
				agent = a
			}
			if p.FunctionResponse != nil {
				responses++
			}
		}
	}
	var call map[string]any
	switch {
	case agent != "" && responses == 0 && has("invoke_agent"):
		call = map[string]any{"name": "invoke_agent", "args": map[string]any{"agent_name": "generalist", "prompt": "LINEAGE-READ " + agent}}
	case has("complete_task") && responses > 0:
		call = map[string]any{"name": "complete_task", "args": map[string]any{"result": map[string]any{"response": "Done."}}}
	default:
		geminiHandler(m, w, r, body)
		return
	}
	resp := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": call}}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", jsonString(resp))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, jsonString(resp))
}

// TestHarnessGeminiSubagent: Gemini CLI's subagents (invoke_agent) send
// tool events with the parent's session and no agent field. lineage
// answers the BeforeTool of invoke_agent by writing the chain and rules
// into the subagent's prompt, and the subagent's read in web/ gets the
// reminder for web/AGENTS.md — exactly once in the subagent's
// conversation — while the parent's state is left as it was.
func TestHarnessGeminiSubagent(t *testing.T) {
	modules := harnessModules(t)
	lineage := lineageBinary(t)
	srv := newModelServer(t, geminiAgentHandler)
	home := t.TempDir()
	env := baseEnv(home, "GEMINI_CLI_HOME="+home, "GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL="+srv.url,
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true")
	gemini := filepath.Join(modules, "@google", "gemini-cli", "bundle", "gemini.js")
	platformtest.WriteTree(t, home, map[string]string{".gemini/settings.json": `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}}` + "\n"})
	runHarness(t, home, env, lineage, "hook", "install", "gemini")
	repo := hookRepo(t, "AGENTS.md")
	app := filepath.Join(repo, "web", "src", "app.ts")
	out := runHarness(t, repo, env, "node", gemini, "-p", "LINEAGE-AGENT "+app, "--output-format", "text")
	var sub []string
	for _, b := range srv.requests(":streamGenerateContent") {
		if strings.Contains(b, `"complete_task"`) && strings.Contains(b, "LINEAGE-READ") {
			sub = append(sub, b)
		}
	}
	if len(sub) < 2 {
		t.Fatalf("the subagent made %d requests, want its read_file and the result\n%s", len(sub), out)
	}
	web := jsonEscaped(filepath.Join(repo, "web", "AGENTS.md") + " (mtime: ")
	for i, b := range sub {
		if n := strings.Count(b, "ROOTMARK-AGENTS.md"); n != 1 {
			t.Errorf("subagent request %d holds the root AGENTS.md text %d times, want once (in its prompt)", i, n)
		}
	}
	if strings.Contains(sub[0], web) {
		t.Errorf("the subagent was told of web/AGENTS.md before it touched web/")
	}
	if last := sub[len(sub)-1]; strings.Count(last, web)+strings.Count(last, "WEBMARK-AGENTS.md") != 1 {
		t.Errorf("the subagent's read in web/ did not bring web/AGENTS.md exactly once:\n%.3000s", last)
	}
}
