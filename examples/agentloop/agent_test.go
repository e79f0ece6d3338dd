package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// fakeModel speaks the Chat Completions wire format: it records each
// request body and answers with the next scripted message.
type fakeModel struct {
	t        *testing.T
	mu       sync.Mutex
	requests []map[string]any
	answers  []string // JSON of choices[0].message
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The request is one the API takes: the store tests' validator, with
	// the model (which it does not know) set aside.
	if req["model"] != "test-model" {
		http.Error(w, "model missing", http.StatusBadRequest)
		return
	}
	delete(req, "model")
	rest, _ := json.Marshal(req)
	if err := storetest.ValidateOpenAIRequest(rest); err != nil {
		f.t.Errorf("request rejected: %v\n%s", err, body)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if len(f.answers) == 0 {
		http.Error(w, "no scripted answer left", http.StatusInternalServerError)
		return
	}
	msg := f.answers[0]
	f.answers = f.answers[1:]
	finish := "stop"
	if strings.Contains(msg, "tool_calls") {
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"test-model",`+
		`"choices":[{"index":0,"finish_reason":"`+finish+`","logprobs":null,"message":`+msg+`}],`+
		`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// One turn with a tool call, a sub-task in a child tract merged back, and a
// second turn that sees it all: each request is built by lineage and sent
// through the official SDK.
func TestAgentLoop(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(dir, "AGENTS.md"), "Run the tests before every commit.\n")
	write(t, filepath.Join(dir, "README.txt"), "hello from the readme\n")
	write(t, filepath.Join(dir, ".clia", "agents", "coder", "coder@repo.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"coder","guardrails":["Never push to main"]}`)

	model := &fakeModel{t: t, answers: []string{
		`{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"README.txt\"}"}}]}`,
		`{"role":"assistant","content":"The README says hello.","refusal":null}`,
		`{"role":"assistant","content":"Counted 3 tests.","refusal":null}`,
		`{"role":"assistant","content":"Done: README read, 3 tests counted.","refusal":null}`,
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()

	st, err := sqlite.Open(ctx, filepath.Join(dir, ".lineage", "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	repo := tract.New(st, tract.Options{})
	if _, _, err := repo.Init(ctx); err != nil {
		t.Fatal(err)
	}
	a := &Agent{Repo: repo, Tract: "main", Dir: dir, Slug: "coder", Model: "test-model", Budget: 4000,
		Client: openai.NewClient(option.WithBaseURL(srv.URL+"/"), option.WithAPIKey("test"), option.WithMaxRetries(0)),
		Tools:  []Tool{ReadFile(dir)}}
	if err := a.Setup(ctx); err != nil {
		t.Fatal(err)
	}

	answer, err := a.Turn(ctx, "What does the README say?")
	if err != nil || answer != "The README says hello." {
		t.Fatalf("turn 1: %q, %v", answer, err)
	}
	if answer, err := a.SubTask(ctx, "counter", "count the tests", "How many tests are there?"); err != nil || answer != "Counted 3 tests." {
		t.Fatalf("sub-task: %q, %v", answer, err)
	}
	if answer, err := a.Turn(ctx, "Sum up."); err != nil || !strings.HasPrefix(answer, "Done") {
		t.Fatalf("turn 2: %q, %v", answer, err)
	}

	if len(model.requests) != 4 {
		t.Fatalf("%d requests, want 4", len(model.requests))
	}
	// Every request starts with the system part: AGENTS.md, then the
	// profile, and carries the tool.
	for i, req := range model.requests {
		msgs := req["messages"].([]any)
		first := msgs[0].(map[string]any)
		second := msgs[1].(map[string]any)
		if first["role"] != "system" || !strings.Contains(first["content"].(string), "Run the tests before every commit.") ||
			!strings.Contains(second["content"].(string), "Never push to main") {
			t.Errorf("request %d: system part %v %v", i, first, second)
		}
		if tools, _ := req["tools"].([]any); len(tools) != 1 {
			t.Errorf("request %d: tools %v", i, req["tools"])
		}
	}
	// The second call of turn 1 carries the tool's result.
	if !strings.Contains(mustJSON(t, model.requests[1]), "hello from the readme") {
		t.Errorf("tool result not sent: %s", mustJSON(t, model.requests[1]))
	}
	// The last request sees the child's work, merged back by reference.
	last := mustJSON(t, model.requests[3])
	for _, want := range []string{"The README says hello.", "How many tests are there?", "Counted 3 tests.", "Sum up."} {
		if !strings.Contains(last, want) {
			t.Errorf("last request lacks %q: %s", want, last)
		}
	}
	// And the memory is the tract: who said what, where it came from.
	entries, err := repo.Blame(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, strings.Join(e.SpawnPath, ">"))
	}
	if !strings.Contains(strings.Join(paths, " "), "main>counter") {
		t.Errorf("no message from the child in the parent's history: %v", paths)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
