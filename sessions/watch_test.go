package sessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func watchedLine(n int, parent string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":"turn %d"},"uuid":"u%d","timestamp":"2026-11-28T10:00:0%d.000Z","cwd":"/repo","sessionId":"0a1b2c3d-0000-4000-8000-00000000000%d","version":"2.1.332"}`+"\n", p, n, n, n, 1)
}

// TestWatcherReadsOnlyWhatChanged: a round hands the importer only the
// files that changed since the round before (an unchanged store reports no
// session at all), a grown file adds its new records, and a file lineage
// cannot read is reported while the others are imported.
func TestWatcherReadsOnlyWhatChanged(t *testing.T) {
	repo, _ := newRepo(t)
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(good, []byte(watchedLine(1, "")+watchedLine(2, "u1")), 0o644); err != nil {
		t.Fatal(err)
	}
	list := []Source{{Harness: Claude, Path: good}}
	w := &Watcher{Importer: &Importer{Repo: repo}, List: func() ([]Source, error) { return list, nil }}
	round := func(wantAdded, wantSessions, wantFailed int) {
		t.Helper()
		rep, failed, err := w.Round(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Added != wantAdded || len(rep.Sessions) != wantSessions || len(failed) != wantFailed {
			t.Fatalf("round: %d added over %d sessions, %d failed (%v); want %d, %d, %d", rep.Added, len(rep.Sessions), len(failed), failed, wantAdded, wantSessions, wantFailed)
		}
	}
	round(2, 1, 0)
	round(0, 0, 0) // nothing changed: the importer is not even called
	f, err := os.OpenFile(good, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(watchedLine(3, "u2"))
	f.Close()
	round(1, 1, 0)

	if err := os.WriteFile(bad, []byte(`{"type":"hologram","uuid":"b1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list = append(list, Source{Harness: Claude, Path: bad})
	f, _ = os.OpenFile(good, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(watchedLine(4, "u3"))
	f.Close()
	round(1, 1, 1) // the good file's new turn despite the bad file
	round(0, 0, 0) // the bad file is not tried again until it changes
	list = list[:1]
	round(0, 0, 0)
	if len(w.seen) != 1 {
		t.Errorf("a file no longer listed is still remembered: %v", w.seen)
	}
}

// TestWatcherSeesASubagentAtWork: a Claude subagent's file that appears or
// grows while its parent's file stays as it was is imported in the next
// round (it is counted in its parent's stamp), and an unchanged one is not
// read again.
func TestWatcherSeesASubagentAtWork(t *testing.T) {
	repo, _ := newRepo(t)
	ctx := context.Background()
	dir := t.TempDir()
	parent := filepath.Join(dir, "0a1b2c3d-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(parent, []byte(watchedLine(1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &Watcher{Importer: &Importer{Repo: repo}, List: func() ([]Source, error) { return []Source{{Harness: Claude, Path: parent}}, nil }}
	round := func(wantAdded int) {
		t.Helper()
		rep, failed, err := w.Round(ctx)
		if err != nil || len(failed) != 0 {
			t.Fatalf("round: %v %v", err, failed)
		}
		if rep.Added != wantAdded {
			t.Fatalf("round added %d, want %d (%+v)", rep.Added, wantAdded, rep)
		}
	}
	round(1)
	subDir := filepath.Join(strings.TrimSuffix(parent, ".jsonl"), "subagents")
	if err := os.MkdirAll(subDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(subDir, "agent-a1.jsonl")
	subLine := func(n int, parentUUID string) string {
		p := "null"
		if parentUUID != "" {
			p = `"` + parentUUID + `"`
		}
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":"sub %d"},"uuid":"s%d","timestamp":"2026-11-28T10:00:1%d.000Z","cwd":"/repo","sessionId":"0a1b2c3d-0000-4000-8000-000000000001","version":"2.1.332"}`+"\n", p, n, n, n)
	}
	if err := os.WriteFile(sub, []byte(subLine(1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	round(1) // the new subagent file, its parent unchanged
	f, err := os.OpenFile(sub, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(subLine(2, "s1"))
	f.Close()
	round(1) // the subagent's new line
	round(0)
	if info, ok, err := Get(ctx, repo, TractName(Claude, "agent-a1")); err != nil || !ok || info.Origin == nil {
		t.Errorf("the subagent's session: %+v, %v, %v", info, ok, err)
	}
}
