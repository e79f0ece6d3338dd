package sessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
