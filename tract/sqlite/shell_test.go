package sqlite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestSQLiteShellReadsStore: the sqlite3 shell of a current LTS
// distribution (Debian 12 ships 3.40) lists, dumps and checks a store
// holding every kind of row this lineage writes (search index and compile
// checkpoints included), and the dump loads back into a database that
// passes its integrity check. CI installs the shell on Linux; elsewhere
// the test is skipped when it is missing.
func TestSQLiteShellReadsStore(t *testing.T) {
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
			t.Fatal("CI needs the sqlite3 shell (apt-get install sqlite3)")
		}
		t.Skip("no sqlite3 shell")
	}
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "lineage.db")
	s, err := sqlite.Open(ctx, p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	r := tract.New(s, tract.Options{})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = r.Init(ctx)
	must(err)
	_, err = r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Name: "style", Text: "Be brief."}})
	must(err)
	_, err = r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "deploy the report"}, Meta: []byte(`{"label":"x"}`)})
	must(err)
	_, err = r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"})
	must(err)
	_, err = r.Commit(ctx, "kid", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "done"}})
	must(err)
	_, err = r.MergeFrom(ctx, "kid", "")
	must(err)
	_, err = r.Annotate(ctx, "main", "HEAD~1", tract.Important, "why")
	must(err)
	_, err = r.CreateTag(ctx, "main", "v1", "HEAD")
	must(err)
	_, err = r.SetConfig(ctx, "main", "budget", "1000")
	must(err)
	_, err = r.Compile(ctx, "main", tract.CompileOptions{})
	must(err)
	must(s.Close())

	run := func(db string, args ...string) string {
		t.Helper()
		out, err := exec.Command(shell, append([]string{db}, args...)...).CombinedOutput()
		if err != nil || strings.Contains(string(out), "Error") {
			t.Fatalf("sqlite3 %s %s: %v\n%s", db, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tables := strings.Fields(run(p, ".tables"))
	for _, want := range []string{"annotations", "blob_words", "blobs", "commits", "compiled_views", "merge_parents", "reflog", "refs", "schema_version", "settings", "tracts"} {
		found := false
		for _, got := range tables {
			found = found || got == want
		}
		if !found {
			t.Errorf(".tables does not list %s: %v", want, tables)
		}
	}
	if got := strings.TrimSpace(run(p, "PRAGMA integrity_check")); got != "ok" {
		t.Fatalf("integrity_check: %s", got)
	}
	dump := run(p, ".dump")
	if !strings.Contains(dump, "COMMIT;") || !strings.Contains(dump, "compiled_views") {
		t.Fatalf(".dump is incomplete:\n%s", dump)
	}
	loaded := filepath.Join(dir, "loaded.db")
	cmd := exec.Command(shell, loaded)
	cmd.Stdin = strings.NewReader(dump)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("loading the dump: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(run(loaded, "PRAGMA integrity_check")); got != "ok" {
		t.Fatalf("integrity_check of the loaded dump: %s", got)
	}
	// The loaded copy is a store this lineage reads.
	back, err := sqlite.Open(ctx, loaded, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	rep, err := tract.New(back, tract.Options{}).Verify(ctx)
	if err != nil || len(rep.Damage) > 0 {
		t.Fatalf("verify of the loaded dump: %+v, %v", rep.Damage, err)
	}
}
