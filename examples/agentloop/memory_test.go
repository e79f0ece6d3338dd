package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agent run as examples/README.md says, for two projects one after
// the other from one working directory: each keeps its memory under its
// own --dir, the second project's requests carry nothing of the first's
// conversation or files, and a store given for the wrong project is
// refused before any request is made.
func TestTwoProjectsStayApart(t *testing.T) {
	ctx := context.Background()
	t.Chdir(t.TempDir()) // where the user runs go run from: no store may land here
	projects := map[string]string{}
	for _, name := range []string{"alpha", "beta"} {
		dir := filepath.Join(t.TempDir(), name)
		write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
		write(t, filepath.Join(dir, "AGENTS.md"), "Project "+name+" rules.\n")
		write(t, filepath.Join(dir, "notes.txt"), "secret of "+name+"\n")
		projects[name] = dir
	}
	model := &fakeModel{t: t, answers: []string{
		`{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"notes.txt\"}"}}]}`,
		`{"role":"assistant","content":"alpha answer","refusal":null}`,
		`{"role":"assistant","content":"beta answer","refusal":null}`,
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/")
	t.Setenv("OPENAI_API_KEY", "test")

	turn := func(cfg config, line string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, cfg, strings.NewReader(line+"\n"), &out, &errOut)
		return errOut.String() + out.String(), err
	}
	alpha := config{Dir: projects["alpha"], Model: "test-model", Budget: 4000}
	out, err := turn(alpha, "alpha question: read notes.txt")
	if err != nil || !strings.Contains(out, "alpha answer") {
		t.Fatalf("alpha: %v\n%s", err, out)
	}
	alphaStore := filepath.Join(projects["alpha"], ".lineage", "lineage.db")
	if !strings.Contains(out, "memory "+alphaStore) {
		t.Errorf("alpha: the run does not say where its memory is:\n%s", out)
	}
	beta := config{Dir: projects["beta"], Model: "test-model", Budget: 4000}
	if out, err := turn(beta, "beta question"); err != nil || !strings.Contains(out, "beta answer") {
		t.Fatalf("beta: %v\n%s", err, out)
	}
	for _, name := range []string{"alpha", "beta"} {
		if _, err := os.Stat(filepath.Join(projects[name], ".lineage", "lineage.db")); err != nil {
			t.Errorf("%s: no store under its --dir: %v", name, err)
		}
	}
	if _, err := os.Stat(".lineage"); !os.IsNotExist(err) {
		t.Errorf("a store was made in the working directory: %v", err)
	}
	if len(model.requests) != 3 {
		t.Fatalf("%d requests, want 3", len(model.requests))
	}
	if first := mustJSON(t, model.requests[1]); !strings.Contains(first, "secret of alpha") {
		t.Fatalf("alpha's tool result never reached the model, so the check below proves nothing: %s", first)
	}
	betaReq := mustJSON(t, model.requests[2])
	for _, leak := range []string{"alpha question", "secret of alpha", "alpha answer", "Project alpha rules", projects["alpha"]} {
		if strings.Contains(betaReq, leak) {
			t.Errorf("beta's request carries alpha's %q: %s", leak, betaReq)
		}
	}

	// alpha's store named for beta: refused, nothing asked, nothing written.
	wrong := beta
	wrong.Store = alphaStore
	before, _ := os.ReadFile(alphaStore)
	out, err = turn(wrong, "beta again")
	if err == nil || !strings.Contains(err.Error(), alphaStore+" remembers project "+projects["alpha"]+", not "+projects["beta"]) {
		t.Fatalf("beta with alpha's store: err = %v\n%s", err, out)
	}
	if len(model.requests) != 3 {
		t.Errorf("a refused run still asked the model (%d requests)", len(model.requests))
	}
	if after, _ := os.ReadFile(alphaStore); !bytes.Equal(before, after) {
		t.Error("a refused run changed alpha's store")
	}
}
