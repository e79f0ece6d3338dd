package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// twoTurns is a Claude Code transcript of two turns in cwd.
func twoTurns(id, cwd string) string {
	line := func(uuid, parent, role, text string, min int) string {
		ts := fmt.Sprintf("2026-11-28T10:%02d:00.000Z", min)
		p := "null"
		if parent != "" {
			p = fmt.Sprintf("%q", parent)
		}
		if role == "user" {
			return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":%q,"timestamp":%q,"cwd":%q,"sessionId":%q,"version":"2.1.332"}`+"\n", p, text, uuid, ts, cwd, id)
		}
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"message":{"id":"m%s","type":"message","role":"assistant","model":"claude-test-1","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":2}},"type":"assistant","uuid":%q,"timestamp":%q,"cwd":%q,"sessionId":%q}`+"\n", p, uuid, text, uuid, ts, cwd, id)
	}
	return line("u1", "", "user", "fix the parser", 1) + line("a1", "u1", "assistant", "reading parser.go", 2) +
		line("u2", "a1", "user", "explain the bug", 3) + line("a2", "u2", "assistant", "the loop stops one token early", 4)
}

// TestSessionHandoff: the model's summary is stored as the handoff tract's
// summary commit and the handoff is left pending for the named harness (or
// the session's own) in the session's project, as `lineage handoff --to`
// leaves it; a session of another project is not found.
func TestSessionHandoff(t *testing.T) {
	ctx := context.Background()
	dir := project(t)
	elsewhere := t.TempDir()
	src := t.TempDir()
	in := filepath.Join(src, "0a1b2c3d-0000-4000-8000-000000000001.jsonl")
	out := filepath.Join(src, "9f8e7d6c-0000-4000-8000-000000000002.jsonl")
	writeFile(t, in, twoTurns("0a1b2c3d-0000-4000-8000-000000000001", dir))
	writeFile(t, out, twoTurns("9f8e7d6c-0000-4000-8000-000000000002", elsewhere))
	store := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlite.Open(ctx, store, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	im := &sessions.Importer{Repo: tract.New(st, tract.Options{})}
	if _, err := im.Import(ctx, []sessions.Source{{Harness: sessions.Claude, Path: in}, {Harness: sessions.Claude, Path: out}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pending := filepath.Join(t.TempDir(), "handoffs")
	cs := connectStdio(t, serverProc{cwd: dir, sessions: store, handoffs: pending}, nil)

	const summary = "We found the bug in the parser's loop; the fix is next."
	var got SessionHandoffOutput
	call(t, cs, "session_handoff", map[string]any{"summary": summary, "to": "codex"}, &got)
	if got.Session != "claude-0a1b2c3d-0000-4000-8000-000000000001" || got.To != "codex" || got.Project != dir ||
		!strings.HasPrefix(got.Tract, "handoff-") || !got.Created || got.Tail == "" ||
		got.Command != "cd '"+dir+"' && codex '"+handoff.StartPrompt+"'" {
		t.Fatalf("session_handoff: %+v", got)
	}
	p, ok, err := handoff.Dir(pending).Peek("codex", dir, time.Now())
	if err != nil || !ok {
		t.Fatalf("pending handoff for codex in %s: %v %v", dir, ok, err)
	}
	if p.Tract != got.Tract || strings.Count(p.Text, summary) != 1 || strings.Count(p.Text, "the loop stops one token early") != 1 ||
		strings.Contains(p.Text, "reading parser.go") || !strings.Contains(p.Text, `session="claude-0a1b2c3d-0000-4000-8000-000000000001"`) {
		t.Fatalf("pending text:\n%s", p.Text)
	}
	if _, ok, _ := handoff.Dir(pending).Peek("claude", dir, time.Now()); ok {
		t.Fatal("a handoff to codex is pending for claude too")
	}

	// The summary is the handoff tract's summary commit, in the store.
	st, err = sqlite.Open(ctx, store, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tract.New(st, tract.Options{}).CompileCold(ctx, got.Tract, tract.CompileOptions{})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) == 0 || res.Messages[0].Type != tract.TypeSummary || res.Messages[0].Content != summary {
		t.Fatalf("handoff tract's compile: %+v", res.Messages)
	}

	// The same harness by default; the same inputs make no new tract.
	var same SessionHandoffOutput
	call(t, cs, "session_handoff", map[string]any{"summary": summary, "session": "0a1b"}, &same)
	if same.To != "claude" || same.Tract != got.Tract || same.Created {
		t.Fatalf("session_handoff to the session's own harness: %+v", same)
	}
	if _, ok, _ := handoff.Dir(pending).Peek("claude", dir, time.Now()); !ok {
		t.Fatal("no handoff pending for claude")
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"summary": "  "}, "summary: write the summary"},
		{map[string]any{"summary": summary, "to": "cobol"}, "cobol does not equal any of: [claude codex gemini]"},
		{map[string]any{"summary": summary, "session": "9f8e"}, "outside the allowed roots"},
		{map[string]any{"summary": summary, "budget": 5}, "budget of 5 tokens is too small"},
	} {
		if msg := callError(t, cs, "session_handoff", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("session_handoff %v: %q, want %q", c.args, msg, c.want)
		}
	}
}
