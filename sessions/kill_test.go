package sessions

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestKilledImportsLoseNothing kills importing processes (SIGKILL, as a
// harness ending a hook or a user closing the terminal would) at a spread
// of moments, then runs one import to the end: every record of the
// session, its subagent and its compaction is stored exactly once, as one
// uninterrupted import stores them.
func TestKilledImportsLoseNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Process.Kill is not SIGKILL on Windows")
	}
	dir := unpack(t, "claude")
	file := filepath.Join(dir, "claude-2.1.332", ".claude", "projects", "-repo", "11111111-2222-4333-8444-555555555555.jsonl")
	store := filepath.Join(t.TempDir(), "s.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, store, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	helper := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperImportProcess$")
		cmd.Env = append(os.Environ(), "SESSIONS_HELPER_STORE="+store, "SESSIONS_HELPER_FILE="+file, "SESSIONS_HELPER_LOCK="+store+".import.lock")
		return cmd
	}
	killed := 0
	for _, d := range []time.Duration{2, 8, 20, 40, 70, 110, 160, 250, 400, 650} {
		cmd := helper()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d * time.Millisecond)
		if cmd.Process.Kill() == nil {
			killed++
		}
		_ = cmd.Wait()
	}
	// What the killed runs left (logged: how far a run got depends on the
	// machine's speed, so it is not asserted).
	if tr, err := tract.New(st, tract.Options{}).Tract(ctx, TractName(Claude, "11111111-2222-4333-8444-555555555555")); err == nil {
		t.Logf("%d runs killed; the session's tract existed before the last run (%s)", killed, tr.Name)
	}
	if out, err := helper().CombinedOutput(); err != nil {
		t.Fatalf("the import after the kills failed: %v\n%s", err, out)
	}
	repo := tract.New(st, tract.Options{})
	once, _ := newRepo(t)
	if _, err := (&Importer{Repo: once}).Import(ctx, []Source{{Harness: Claude, Path: file}}); err != nil {
		t.Fatal(err)
	}
	ts, err := once.Tracts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if tr.Name == IndexTract {
			continue
		}
		counts := keyCounts(t, repo, tr.Name)
		want := storedKeys(t, once, tr.Name)
		for k := range want {
			if counts[k] != 1 {
				t.Errorf("%s: key %s stored %d times after %d kills", tr.Name, k, counts[k], killed)
			}
		}
		if len(counts) != len(want) {
			t.Errorf("%s: %d keys after the kills, one import %d", tr.Name, len(counts), len(want))
		}
	}
}
