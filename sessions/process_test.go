package sessions

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestHelperImportProcess is one importing process of
// TestConcurrentImportsStoreEachRecordOnce; it does nothing in a normal run.
func TestHelperImportProcess(t *testing.T) {
	store, file := os.Getenv("SESSIONS_HELPER_STORE"), os.Getenv("SESSIONS_HELPER_FILE")
	if store == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, store, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	im := &Importer{Repo: tract.New(st, tract.Options{}), LockPath: os.Getenv("SESSIONS_HELPER_LOCK")}
	if _, err := im.Import(ctx, []Source{{Harness: Claude, Path: file}}); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentImportsStoreEachRecordOnce runs several processes importing
// one grown transcript into one store at once: under the import lock each
// record is stored once, as one import would.
func TestConcurrentImportsStoreEachRecordOnce(t *testing.T) {
	dir := unpack(t, "claude")
	whole := filepath.Join(dir, "claude-2.1.332", ".claude", "projects", "-repo", "22222222-3333-4444-8555-666666666666.jsonl")
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	grown := filepath.Join(t.TempDir(), filepath.Base(whole))
	half := strings.Join(strings.SplitAfter(string(data), "\n")[:15], "")
	if err := os.WriteFile(grown, []byte(half), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "s.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, store, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	repo := tract.New(st, tract.Options{})
	if _, err := (&Importer{Repo: repo}).Import(ctx, []Source{{Harness: Claude, Path: grown}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grown, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperImportProcess$")
		cmd.Env = append(os.Environ(), "SESSIONS_HELPER_STORE="+store, "SESSIONS_HELPER_FILE="+grown, "SESSIONS_HELPER_LOCK="+store+".import.lock")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("an importing process failed: %v", err)
		}
	}
	counts := keyCounts(t, repo, TractName(Claude, "22222222-3333-4444-8555-666666666666"))
	for k, n := range counts {
		if n != 1 {
			t.Errorf("key %s stored %d times", k, n)
		}
	}
	once, _ := newRepo(t)
	if _, err := (&Importer{Repo: once}).Import(ctx, []Source{{Harness: Claude, Path: whole}}); err != nil {
		t.Fatal(err)
	}
	if want := len(storedKeys(t, once, TractName(Claude, "22222222-3333-4444-8555-666666666666"))); len(counts) != want {
		t.Errorf("the concurrent imports hold %d keys, one import %d", len(counts), want)
	}
	st.Close()
}

// keyCounts counts, per record key, the commits the tract reaches that
// carry it.
func keyCounts(t *testing.T, repo *tract.Repo, name string) map[string]int {
	t.Helper()
	ctx := context.Background()
	tr, err := repo.Tract(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := repo.Store().Refs(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	var heads []tract.Hash
	for _, r := range refs {
		if r.Name != tract.HeadRef {
			heads = append(heads, tract.Hash(r.Value))
		}
	}
	cs, err := repo.Store().Ancestry(ctx, heads)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, c := range cs {
		var m commitMeta
		if len(c.Meta) > 0 {
			if err := json.Unmarshal(c.Meta, &m); err != nil {
				t.Fatal(fmt.Errorf("commit %s: %w", c.Hash, err))
			}
		}
		for _, k := range m.Keys {
			out[k]++
		}
	}
	return out
}
