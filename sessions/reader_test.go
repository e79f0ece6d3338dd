package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func writeTranscript(t *testing.T, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	claudeUser = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-28T10:00:00Z","cwd":"/w","version":"2.1.332","gitBranch":"main","message":{"role":"user","content":"hello"}}`
	claudeAsst = `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-28T10:00:01Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":7,"output_tokens":3}}}`
)

func TestClaudeUnknownTypeFailsLoudly(t *testing.T) {
	for _, tc := range []struct{ line, typ string }{
		{`{"type":"hologram","uuid":"x"}`, "hologram"},
		{`{"type":"system","subtype":"warp","uuid":"x","parentUuid":"u1"}`, "system/warp"},
		{`{"type":"attachment","uuid":"x","parentUuid":"u1","attachment":{"type":"smell"}}`, "attachment/smell"},
		{`{"type":"assistant","uuid":"x","parentUuid":"u1","message":{"id":"m","content":[{"type":"video"}]}}`, "assistant/video"},
	} {
		p := writeTranscript(t, "s1.jsonl", claudeUser, tc.line)
		_, err := ClaudeReader{}.Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{})
		var ue *UnclassifiedError
		if !errors.As(err, &ue) || ue.Type != tc.typ || ue.Line != 2 {
			t.Errorf("%s: got %v, want an unclassified %q on line 2", tc.typ, err, tc.typ)
		}
		repo, _ := newRepo(t)
		if _, err := (&Importer{Repo: repo}).Import(context.Background(), []Source{{Harness: Claude, Path: p}}); err == nil {
			t.Errorf("%s: import succeeded", tc.typ)
		}
		if ts, _ := repo.Tracts(context.Background()); len(ts) != 0 {
			t.Errorf("%s: a failed import left tracts %v", tc.typ, ts)
		}
	}
}

func TestClaudeBadLines(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"type":"user"`, "line 2: not a JSON object"},
		{`{"uuid":"x"}`, "line 2: type: missing"},
		{`{"type":"user","parentUuid":"u1","message":{"content":"x"}}`, "line 2: uuid: missing"},
		{`{"type":"user","uuid":"x","parentUuid":"u1","message":{"content":7}}`, "line 2: message.content: want a string"},
		{`{"type":"user","uuid":"x","parentUuid":"u1","message":{"content":[{"type":"tool_result","content":"r"}]}}`, "line 2: tool_use_id: missing"},
	} {
		p := writeTranscript(t, "s1.jsonl", claudeUser, tc.line)
		_, err := ClaudeReader{}.Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("got %v, want an error naming %s and %q", err, p, tc.want)
		}
	}
}

func TestClaudePartialLineWaits(t *testing.T) {
	p := writeTranscript(t, "s1.jsonl", claudeUser)
	if err := appendFile(p, claudeAsst[:40]); err != nil {
		t.Fatal(err)
	}
	b, err := ClaudeReader{}.Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Records) != 1 || b.Next.Offset != int64(len(claudeUser)+1) || b.Next.LastKey != "u1" || b.Next.Line != 1 {
		t.Fatalf("read %d records, next %+v", len(b.Records), b.Next)
	}
	if err := appendFile(p, claudeAsst[40:]+"\n"); err != nil {
		t.Fatal(err)
	}
	b, err = ClaudeReader{}.Read(context.Background(), Source{Harness: Claude, Path: p}, b.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Records) != 1 || b.Records[0].Key() != "a1" || b.Records[0].Parent != "u1" || b.Records[0].Turn.Input != 7 {
		t.Fatalf("second read %+v", b.Records)
	}
	if _, err := (ClaudeReader{}).Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{Offset: 1 << 20}); !errors.Is(err, ErrCursorStale) {
		t.Errorf("a cursor past the end gave %v", err)
	}
}

func TestSecretsMasked(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("A1b2", 10)
	pem := `-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----`
	line := `{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s1","message":{"role":"user","content":"use ` + key + ` and ghp_` + strings.Repeat("x", 36) + ` and ` + pem + `"}}`
	aside := `{"type":"last-prompt","lastPrompt":"AKIAABCDEFGHIJKLMNOP","sessionId":"s1"}`
	p := writeTranscript(t, "s1.jsonl", claudeUser, line, aside)
	for _, keep := range []bool{false, true} {
		repo, _ := newRepo(t)
		rep, err := (&Importer{Repo: repo, KeepSecrets: keep}).Import(context.Background(), []Source{{Harness: Claude, Path: p}})
		if err != nil {
			t.Fatal(err)
		}
		log, err := repo.Log(context.Background(), TractName(Claude, "s1"), tractLogAll())
		if err != nil {
			t.Fatal(err)
		}
		all := logText(t, repo, log)
		leaked := strings.Contains(all, key) || strings.Contains(all, "AKIAABCDEFGHIJKLMNOP") || strings.Contains(all, "MIIEow")
		switch {
		case !keep && (rep.Masked != 4 || leaked || !strings.Contains(all, "[masked:anthropic-key]")):
			t.Errorf("masked %d (want 4), leaked %v: %s", rep.Masked, leaked, all)
		case keep && (rep.Masked != 0 || !leaked):
			t.Errorf("--keep-secrets masked %d, kept %v", rep.Masked, leaked)
		}
	}
}

func tractLogAll() tract.LogOptions { return tract.LogOptions{All: true} }

// logText is every logged commit's full text.
func logText(t *testing.T, repo *tract.Repo, log []tract.LogEntry) string {
	t.Helper()
	var b strings.Builder
	for _, e := range log {
		if e.Type == "" {
			continue
		}
		var s tract.Shown
		s, err := repo.Show(context.Background(), TractName(Claude, "s1"), string(e.Hash))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(s.Content.Text + "\n")
	}
	return b.String()
}
