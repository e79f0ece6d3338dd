package webui

import (
	"context"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/memory"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// The turn view lists the memories lineage's hook delivered by that turn,
// each with its provenance and the commit holding the hook's answer: the
// answer is kept (never compiled: lineage sends its own text fresh), so
// the view reads it from the history. A turn before the delivery lists
// none.
func TestTurnShowsTheMemoryDeliveredByThen(t *testing.T) {
	ctx := context.Background()
	f := sessionsFixture(t)
	all, err := sessions.List(ctx, f.repo, sessions.ListOptions{})
	if err != nil || len(all) == 0 {
		t.Fatal(err, len(all))
	}
	name := all[0].Tract
	turns := func() int {
		res, err := f.repo.Compile(ctx, name, tract.CompileOptions{Uncounted: true})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range res.Messages {
			if m.Type == tract.TypeMessage && m.Role == tract.RoleUser {
				n++
			}
		}
		return n
	}
	before := turns()
	m := memory.Memory{ID: "2d5248d9", Scope: memory.Project, Source: "lineage", Text: "the API uses <snake_case> keys", Harness: "claude", Session: "0a1b2c3d"}
	d, err := memory.Deliver(memory.Candidates{Lineage: []memory.Memory{m}}, memory.DeliverOptions{MaxBytes: 4096, Harness: "codex"})
	if err != nil || d.Text == "" {
		t.Fatal(err, d.Text)
	}
	commit := func(req tract.CommitRequest) {
		t.Helper()
		if _, err := f.repo.Commit(ctx, name, req); err != nil {
			t.Fatal(err)
		}
	}
	commit(tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Text: "AGENTS.md in this session:\n- x\n\n" + d.Text},
		Meta:     []byte(`{"injected":{"source":"attachment/hook_additional_context","lineage":true}}`),
		Priority: tract.Skip, Reason: "lineage's own context, injected by the harness"})
	commit(tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "next question"}})
	if turns() != before+1 {
		t.Fatalf("%d turns after one more prompt, want %d", turns(), before+1)
	}
	ts := newTestServer(t, f, Options{Sessions: true, Window: 1})
	page := mustGet(t, ts.URL+fmt.Sprintf("/tract/%s/turns?turn=%d", name, before+1))
	if want := html.EscapeString(memory.Line(d.Sent[0])); !strings.Contains(page, `<table id="memory">`) || !strings.Contains(page, want) {
		t.Errorf("turn %d does not list the delivered memory %q\n%s", before+1, want, page)
	}
	if earlier := mustGet(t, ts.URL+fmt.Sprintf("/tract/%s/turns?turn=%d", name, before)); !strings.Contains(earlier, `<p id="memory-none">`) {
		t.Errorf("turn %d, before the delivery, lists memory\n%s", before, earlier)
	}
}
