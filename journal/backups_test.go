package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
)

// A backup's document is found by name: the name without .bak (and CLIA's
// .schema-<version>), or the name migrate gave a legacy one.
func TestBackupOf(t *testing.T) {
	files := map[string]bool{"a@x.agent.triad.json": true, "b@x.agenda.triad.json": true, "notes.txt": true}
	exists := func(n string) bool { return files[n] }
	tests := []struct{ bak, want string }{
		{"a@x.agent.triad.json.bak", "a@x.agent.triad.json"},
		{"a@x.agent.json.bak", "a@x.agent.triad.json"},
		{"b@x.agenda.triad.json.schema-0.4.0.bak", "b@x.agenda.triad.json"},
		{"notes.txt.bak", "notes.txt"},
		{"c@x.agent.json.bak", ""},
		{"a@x.agent.triad.json", ""},
		{".bak", ""},
	}
	for _, tt := range tests {
		got, ok := BackupOf(tt.bak, exists)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("BackupOf(%q) = %q, %v; want %q", tt.bak, got, ok, tt.want)
		}
	}
}

func FuzzBackupOf(f *testing.F) {
	f.Add("a@x.agent.json.bak", "a@x.agent.triad.json")
	f.Add("b.agency.triad.json.schema-0.4.0.bak", "b.agency.triad.json")
	f.Fuzz(func(t *testing.T, bak, existing string) {
		got, ok := BackupOf(bak, func(n string) bool { return n == existing })
		if ok != (got != "") || (ok && got != existing) {
			t.Fatalf("BackupOf(%q) = %q, %v with %q existing", bak, got, ok, existing)
		}
		if ok && !strings.HasSuffix(bak, ".bak") {
			t.Fatalf("%q is no backup name", bak)
		}
	})
}

// A backup is safe when the current document holds all it does; one with
// an entry, a field or notes of its own is kept, and so is one without a
// document. --apply removes only the safe ones, and a second run finds
// nothing more to do.
func TestCleanupBackups(t *testing.T) {
	root := tempRoot(t)
	dir := ".clia/agents/s/"
	cur := `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "notes": {"blocks": [{"kind": "paragraph", "text": ["n"]}]},
 "entries": [{"id": "1", "summary": "one"}, {"id": "2", "summary": "two"}]}`
	write(t, root, map[string]string{
		".git":                        "<dir>",
		dir + "s@x.agency.triad.json": cur,
		// Older: one entry fewer, a legacy $schemaVersion and a scalar since changed.
		dir + "s@x.agency.triad.json.bak": `{"$schemaVersion": "0.3.0", "slug": "s", "title": "Old", "entries": [{"id": "1", "summary": "one"}]}`,
		dir + "s@x.agent.triad.json":      `{"schemaVersion": "0.4.0", "slug": "s", "guardrails": ["a"]}`,
		// Holds a guardrail the current document does not.
		dir + "s@x.agent.triad.json.bak": `{"schemaVersion": "0.4.0", "slug": "s", "guardrails": ["a", "b"]}`,
		dir + "s@x.agenda.triad.json":    `{"schemaVersion": "0.4.0", "slug": "s", "notes": {"blocks": []}}`,
		// Notes a merge would take whole from the current document.
		dir + "s@x.agenda.triad.json.bak": `{"schemaVersion": "0.4.0", "slug": "s", "notes": {"blocks": [{"kind": "paragraph", "text": ["old"]}]}}`,
		dir + "gone@x.agent.json.bak":     `{}`,
	})
	opts := Options{Agents: agents.Options{Path: root}}
	ctx := context.Background()
	d := filepath.Join(root, dir)
	want := map[string]string{
		"gone@x.agent.json.bak":     KeepNoCurrent,
		"s@x.agency.triad.json.bak": "",
		"s@x.agenda.triad.json.bak": KeepHoldsMore,
		"s@x.agent.triad.json.bak":  KeepHoldsMore,
	}
	check := func(res []Backup, apply bool) {
		t.Helper()
		if len(res) != len(want) {
			t.Fatalf("%d backups: %+v", len(res), res)
		}
		for _, b := range res {
			name := filepath.Base(b.File)
			reason, ok := want[name]
			if !ok || b.Reason != reason || b.Safe != (reason == "") || b.Removed != (apply && b.Safe) {
				t.Errorf("apply=%v %s: %+v, want reason %q", apply, name, b, reason)
			}
			if b.Safe && b.Current != filepath.Join(d, strings.TrimSuffix(name, ".bak")) {
				t.Errorf("%s backs up %s", name, b.Current)
			}
			if _, err := os.Stat(b.File); (err == nil) == b.Removed {
				t.Errorf("%s: removed %v, on disk %v", name, b.Removed, err == nil)
			}
		}
	}
	res, err := CleanupBackups(ctx, opts, BackupCleanup{Slug: "s"})
	if err != nil {
		t.Fatal(err)
	}
	check(res, false)
	res, err = CleanupBackups(ctx, opts, BackupCleanup{Dir: root, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	check(res, true)
	delete(want, "s@x.agency.triad.json.bak")
	res, err = CleanupBackups(ctx, opts, BackupCleanup{Slug: "s", Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	check(res, false)
}

// The check is made again under the directory's lock: a backup that has
// become the only copy of an entry since it was listed stays.
func TestCleanupBackupsChecksAgainUnderTheLock(t *testing.T) {
	root := tempRoot(t)
	dir := filepath.Join(root, ".clia/agents/s")
	write(t, root, map[string]string{
		".git":                                 "<dir>",
		".clia/agents/s/s@x.agency.triad.json": `{"slug": "s", "entries": [{"id": "1"}, {"id": "2"}]}`,
		".clia/agents/s/s@x.agency.triad.json.bak": `{"slug": "s", "entries": [{"id": "1"}]}`,
	})
	b := judgeBackup(filepath.Join(dir, "s@x.agency.triad.json.bak"), nil)
	if !b.Safe {
		t.Fatalf("%+v", b)
	}
	if err := os.WriteFile(b.Current, []byte(`{"slug": "s", "entries": [{"id": "2"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := removeBackup(context.Background(), root, b)
	if err != nil || removed {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if _, err := os.Stat(b.File); err != nil {
		t.Fatal(err)
	}
}

// On the corpus, every .bak migrate --write leaves (and CLIA's own
// .schema-0.4.0.bak files) is safe to remove: the migrated documents hold
// all their backups do. Removing them changes no merged profile, and a
// second cleanup has nothing left to do.
func TestCleanupBackupsAfterMigrateOnTheCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("migrates a copy of the whole corpus; the -short passes (linux/386, Windows) leave it to the native run")
	}
	ws := filepath.Join(t.TempDir(), "ws")
	if err := agentstest.CopyTree(agentstest.CorpusDir(t), ws); err != nil {
		t.Fatal(err)
	}
	opts := Options{Agents: agents.Options{Path: ws}}
	ctx := context.Background()
	if _, err := Migrate(ctx, opts, Tidy{Dir: ".", Write: true}); err != nil {
		t.Fatal(err)
	}
	before := profiles(t, ws)
	res, err := CleanupBackups(ctx, opts, BackupCleanup{Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	safe := 0
	for _, b := range res {
		if b.Safe {
			safe++
		} else {
			t.Errorf("kept %s: %s", b.File, b.Reason)
		}
	}
	if len(res) < 60 {
		t.Fatalf("%d backups after migrate", len(res))
	}
	t.Logf("%d backups, %d safe", len(res), safe)
	if _, err := CleanupBackups(ctx, opts, BackupCleanup{Dir: ws, Apply: true}); err != nil {
		t.Fatal(err)
	}
	if res, err := CleanupBackups(ctx, opts, BackupCleanup{Dir: ws}); err != nil || len(res) != 0 {
		t.Fatalf("after --apply: %+v %v", res, err)
	}
	after := profiles(t, ws)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed by the cleanup", k)
		}
	}
}
