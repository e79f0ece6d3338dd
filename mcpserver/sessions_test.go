package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// claudeTranscript is a two-record Claude Code transcript of session id,
// started in cwd at minute min.
func claudeTranscript(id, cwd, prompt, answer string, min int) string {
	ts := fmt.Sprintf("2026-11-28T10:%02d:00.000Z", min)
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"u1","timestamp":%q,"cwd":%q,"sessionId":%q,"version":"2.1.332","gitBranch":"main"}
{"parentUuid":"u1","isSidechain":false,"message":{"id":"m1","type":"message","role":"assistant","model":"claude-test-1","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":2}},"type":"assistant","uuid":"a1","timestamp":%q,"sessionId":%q}
`, prompt, ts, cwd, id, answer, ts, id)
}

// sessionsStore imports two sessions, one in project and one elsewhere,
// into a new sessions store and returns its path.
func sessionsStore(t *testing.T, project, elsewhere string) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "0a1b2c3d-0000-4000-8000-000000000001.jsonl")
	out := filepath.Join(dir, "9f8e7d6c-0000-4000-8000-000000000002.jsonl")
	writeFile(t, in, claudeTranscript("0a1b2c3d-0000-4000-8000-000000000001", filepath.Join(project, "sub"), "fix the parser", "the loop stops one token early", 1))
	writeFile(t, out, claudeTranscript("9f8e7d6c-0000-4000-8000-000000000002", elsewhere, "tune the cache", "one token early here too", 2))
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	im := &sessions.Importer{Repo: tract.New(st, tract.Options{})}
	if _, err := im.Import(ctx, []sessions.Source{{Harness: sessions.Claude, Path: in}, {Harness: sessions.Claude, Path: out}}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSessionsToolsConfinedToProject(t *testing.T) {
	dir := project(t)
	elsewhere := t.TempDir()
	store := sessionsStore(t, dir, elsewhere)
	cs := connectStdio(t, serverProc{cwd: dir, sessions: store}, nil)

	var list SessionsListOutput
	call(t, cs, "sessions_list", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Session != "0a1b2c3d-0000-4000-8000-000000000001" || list.Sessions[0].FirstPrompt != "fix the parser" {
		t.Fatalf("sessions_list in the project: %+v", list.Sessions)
	}
	var found SessionsFindOutput
	call(t, cs, "sessions_find", map[string]any{"query": "token early"}, &found)
	if len(found.Hits) != 1 || found.Hits[0].Session.Cwd != filepath.Join(dir, "sub") || !strings.Contains(found.Hits[0].Text, "stops one token") {
		t.Fatalf("sessions_find in the project: %+v", found.Hits)
	}
	var shown SessionsShowOutput
	call(t, cs, "sessions_show", map[string]any{"session": "0a1b"}, &shown)
	if shown.Tract != "claude-0a1b2c3d-0000-4000-8000-000000000001" || len(shown.Branches) == 0 {
		t.Fatalf("sessions_show: %+v", shown)
	}
	if msg := callError(t, cs, "sessions_show", map[string]any{"session": "9f8e"}); !strings.Contains(msg, "outside the allowed roots") {
		t.Fatalf("sessions_show of another project's session: %q", msg)
	}
	if msg := callError(t, cs, "sessions_list", map[string]any{"from": "cobol"}); !strings.Contains(msg, "cobol") {
		t.Fatalf("sessions_list from cobol: %q", msg)
	}

	all := connectStdio(t, serverProc{cwd: dir, sessions: store, sessionsAll: true}, nil)
	call(t, all, "sessions_list", nil, &list)
	if len(list.Sessions) != 2 || list.Sessions[0].Cwd != elsewhere {
		t.Fatalf("sessions_list of all projects, newest first: %+v", list.Sessions)
	}
	call(t, all, "sessions_find", map[string]any{"query": "token early", "limit": 1}, &found)
	if len(found.Hits) != 1 {
		t.Fatalf("sessions_find limit 1: %+v", found.Hits)
	}
	call(t, all, "sessions_show", map[string]any{"session": "9f8e"}, &shown)
	if shown.Cwd != elsewhere {
		t.Fatalf("sessions_show with all projects: %+v", shown)
	}
}

func TestSessionsToolsWithoutStore(t *testing.T) {
	dir := project(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	cs := connectStdio(t, serverProc{cwd: dir, sessions: missing}, nil)
	msg := callError(t, cs, "sessions_list", nil)
	if msg == "" {
		t.Fatal("no error for a missing store")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("a read made the store")
	}
}
