package sdkcheck

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// world is a project with two AGENTS.md, an agent with two layers, and a
// tract with tools, a tool call and its result, a spawned child merged back.
func world(t *testing.T) compose.Options {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for name, content := range map[string]string{
		".git/HEAD":      "ref: refs/heads/main\n",
		"AGENTS.md":      "Run the tests before every commit.\n",
		"svc/AGENTS.md":  "Services speak JSON; never log secrets.\n",
		"svc/handler.go": "package svc\n",
		".clia/agents/coder/coder@repo.agent.triad.json":    `{"schemaVersion":"0.4.0","slug":"coder","role":"Coder","guardrails":["Never push to main"]}`,
		"svc/.clia/agents/coder/coder@svc.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"coder","guardrails":["Keep handlers small"]}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	repo := tract.New(st, tract.Options{})
	if _, _, err := repo.Init(ctx); err != nil {
		t.Fatal(err)
	}
	commit := func(name string, c tract.Content) {
		t.Helper()
		if _, err := repo.Commit(ctx, name, tract.CommitRequest{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	commit("main", tract.Content{Type: tract.TypeInstruction, Text: "You are a careful engineer."})
	commit("main", tract.Content{Type: tract.TypeTools, Tools: []tract.ToolDef{{Name: "read_file", Description: "Read a file",
		Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}})
	commit("main", tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "What does handler.go hold?"})
	commit("main", tract.Content{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"svc/handler.go"}`}}})
	commit("main", tract.Content{Type: tract.TypeToolResult, ToolCallID: "call_1", Text: "package svc"})
	commit("main", tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: "Only its package clause."})
	if _, err := repo.Spawn(ctx, "main", "helper", tract.SpawnOptions{Purpose: "look around"}); err != nil {
		t.Fatal(err)
	}
	commit("helper", tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: "No tests in svc yet."})
	if _, err := repo.MergeFrom(ctx, "helper", "main"); err != nil {
		t.Fatal(err)
	}
	commit("main", tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "Write a test for it."})
	return compose.Options{
		Target:       filepath.Join(dir, "svc", "handler.go"),
		Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
		Slug:         "coder",
		Repo:         repo,
		Tract:        "main",
		Budget:       4000,
		Model:        "test-model",
		MaxTokens:    256,
	}
}

// body is the request as `lineage context` prints it.
func body(t *testing.T, o compose.Options, f compose.Format) []byte {
	t.Helper()
	o.Format = f
	res, err := compose.Compile(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonv2.Marshal(res.Request, jsonv2.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSON decodes both and compares the values.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs from what lineage composed:\n got %s\nwant %s", what, got, want)
	}
}

// server answers POST path with reply and keeps the body it got.
func server(t *testing.T, path, reply string) (*httptest.Server, *[]byte) {
	t.Helper()
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func TestOpenAIRequestThroughTheSDK(t *testing.T) {
	want := body(t, world(t), compose.FormatOpenAIRequest)
	var params openai.ChatCompletionNewParams
	if err := params.UnmarshalJSON(want); err != nil {
		t.Fatalf("the SDK refused the request: %v\n%s", err, want)
	}
	if params.Model != "test-model" || params.MaxCompletionTokens.Value != 256 || len(params.Messages) < 6 || len(params.Tools) != 1 {
		t.Fatalf("params decoded as model %q, max %d, %d messages, %d tools", params.Model, params.MaxCompletionTokens.Value, len(params.Messages), len(params.Tools))
	}
	if params.Messages[0].OfSystem == nil || params.Messages[3].OfUser == nil || params.Messages[4].OfAssistant == nil || len(params.Messages[4].OfAssistant.ToolCalls) != 1 {
		t.Fatalf("messages decoded into the wrong kinds: %+v", params.Messages)
	}
	srv, got := server(t, "/chat/completions", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"test-model",`+
		`"choices":[{"index":0,"finish_reason":"stop","logprobs":null,"message":{"role":"assistant","content":"ok","refusal":null}}],`+
		`"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`)
	client := openai.NewClient(openaioption.WithBaseURL(srv.URL+"/"), openaioption.WithAPIKey("test"), openaioption.WithMaxRetries(0))
	out, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if out.Choices[0].Message.Content != "ok" {
		t.Fatalf("reply %+v", out)
	}
	sameJSON(t, "the body the SDK sent", *got, withoutNullContent(t, want))
}

func TestAnthropicRequestThroughTheSDK(t *testing.T) {
	want := body(t, world(t), compose.FormatAnthropicRequest)
	var params anthropic.MessageNewParams
	if err := params.UnmarshalJSON(want); err != nil {
		t.Fatalf("the SDK refused the request: %v\n%s", err, want)
	}
	if params.Model != "test-model" || params.MaxTokens != 256 || len(params.System) == 0 || len(params.Messages) < 3 || len(params.Tools) != 1 {
		t.Fatalf("params decoded as model %q, max %d, %d system blocks, %d messages, %d tools",
			params.Model, params.MaxTokens, len(params.System), len(params.Messages), len(params.Tools))
	}
	srv, got := server(t, "/v1/messages", `{"id":"msg_1","type":"message","role":"assistant","model":"test-model",`+
		`"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,`+
		`"usage":{"input_tokens":10,"output_tokens":1}}`)
	client := anthropic.NewClient(anthropicoption.WithBaseURL(srv.URL+"/"), anthropicoption.WithAPIKey("test"), anthropicoption.WithMaxRetries(0))
	out, err := client.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Content) != 1 || out.Content[0].Text != "ok" {
		t.Fatalf("reply %+v", out)
	}
	sameJSON(t, "the body the SDK sent", *got, blockForms(t, want))
}

// blockForms writes an Anthropic body the way the SDK sends it: the API
// takes a string or a list of text blocks for system and for a
// tool_result's content, and the SDK always sends the list. Nothing else
// may differ.
func blockForms(t *testing.T, body []byte) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	blocks := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	if s, ok := b["system"].(string); ok {
		b["system"] = blocks(s)
	}
	for _, m := range b["messages"].([]any) {
		for _, c := range m.(map[string]any)["content"].([]any) {
			block := c.(map[string]any)
			if s, ok := block["content"].(string); ok && block["type"] == "tool_result" {
				block["content"] = blocks(s)
			}
		}
	}
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutNullContent drops "content": null from an OpenAI body's messages,
// as the SDK does: for an assistant message with tool calls the API takes
// either.
func withoutNullContent(t *testing.T, body []byte) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	for _, m := range b["messages"].([]any) {
		if c, ok := m.(map[string]any)["content"]; ok && c == nil {
			delete(m.(map[string]any), "content")
		}
	}
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
