package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// v1Shape turns a store back into schema version 1: no positions,
// settings, commit metadata or search index.
const v1Shape = v8Revert + v7Revert + `DROP TABLE compiled_views;
	DROP INDEX commits_tract_time;
	DROP TABLE blob_words;
	DROP TABLE settings;
	ALTER TABLE commits DROP COLUMN meta;
	ALTER TABLE commits DROP COLUMN jump;
	ALTER TABLE commits DROP COLUMN depth;
	ALTER TABLE commits DROP COLUMN gen;
	UPDATE schema_version SET version = 1;`

// TestUpgradeFromV1: a generated history, turned back into a v1 store, is
// migrated by a writable open with every commit's position, and reads
// through positions cost O(touched) on it, opened read-only.
func TestUpgradeFromV1(t *testing.T) {
	storetest.RunUpgrade(t, newStore, func(t *testing.T, s tract.Store) tract.Store {
		st := s.(*sqlite.Store)
		if _, err := st.DB().ExecContext(context.Background(), v1Shape); err != nil {
			t.Fatal(err)
		}
		st.Close()
		w, err := sqlite.Open(context.Background(), st.Path(), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if from, to := w.Migrated(); from != 1 || to != sqlite.SchemaVersion {
			t.Fatalf("Migrated() = %d, %d; want 1, %d", from, to, sqlite.SchemaVersion)
		}
		w.Close()
		up, err := sqlite.Open(context.Background(), st.Path(), sqlite.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return up
	})
}

// copyFixture copies testdata/v1.db, a store the released lineage (schema
// version 1, commit 988813c) wrote: tract main with an instruction, three
// messages, branch side merged with --no-ff, child tract research spawned
// and merged back with merge-from, and HEAD~3 annotated important.
func copyFixture(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "v1.db"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lineage.db")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openOld is a read-only open of the released store at p: it fails with
// tract.ErrOldSchema, names the file, the version and what to do, and
// leaves the file's bytes as they were.
func openOld(t *testing.T, p string) {
	t.Helper()
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(context.Background(), p, sqlite.Options{ReadOnly: true})
	if err == nil {
		s.Close()
		t.Fatal("a read-only open of a v1 store succeeded; want tract.ErrOldSchema")
	}
	if !errors.Is(err, tract.ErrOldSchema) {
		t.Errorf("error %q is not tract.ErrOldSchema", err)
	}
	want := fmt.Sprintf("store %s: schema version 1 is older than this lineage's (%d): run 'lineage tract migrate' once to upgrade it (any write command also does)", p, sqlite.SchemaVersion)
	if err.Error() != want {
		t.Errorf("error %q\nwant   %q", err, want)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("a read-only open changed the old store's file")
	}
}

// TestMigrateReleasedStore: a read-only open of a store the released
// lineage wrote fails (tract.ErrOldSchema) and writes nothing; a writable
// open migrates it once (nothing to do for the second), and then the
// reads show what the released lineage showed.
func TestMigrateReleasedStore(t *testing.T) {
	ctx := context.Background()
	p := copyFixture(t)
	openOld(t, p)
	for i, want := range []int{1, sqlite.SchemaVersion} {
		w, err := sqlite.Open(ctx, p, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if from, to := w.Migrated(); from != want || to != sqlite.SchemaVersion {
			t.Errorf("writable open %d: Migrated() = %d, %d; want %d, %d", i+1, from, to, want, sqlite.SchemaVersion)
		}
		w.Close()
	}
	s, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var version int
	if err := s.DB().QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil || version != sqlite.SchemaVersion {
		t.Fatalf("schema version %d (%v) after the migration, want %d", version, err, sqlite.SchemaVersion)
	}
	r := tract.New(s, tract.Options{})

	rep, err := r.Verify(ctx)
	if err != nil || len(rep.Damage) != 0 || rep.Blobs != 10 || rep.Commits != 12 || rep.Refs != 5 {
		t.Fatalf("verify = %+v, %v; the released lineage said 10 blobs, 12 commits, 5 refs, no damage", rep, err)
	}
	// The hashes and order the released lineage printed for `tract log`.
	log, err := r.Log(ctx, "main", tract.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Hash.Short()+" "+e.Summary)
	}
	want := []string{"63744df1 after merge", "0f216850 merge-from research", "a244ff82 child finding two",
		"a9e836e4 child finding one", "912cf26a merge side", "549838c0 side answer", "5629f174 side remark",
		"9287576f main goes on", "47e10e1f what is 2+2?", "6b55ea8d hi there", "fe31c098 hello",
		"2abd146f You are a careful assistant."}
	if !slices.Equal(got, want) {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	res, err := r.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range res.Messages {
		texts = append(texts, m.Role+":"+m.Content+":"+string(m.Priority))
	}
	wantTexts := []string{"system:You are a careful assistant.:pinned", "user:hello:normal", "assistant:hi there:normal",
		"user:what is 2+2?:important", "user:main goes on:normal", "user:side remark:normal", "assistant:side answer:normal",
		"user:child finding one:normal", "assistant:child finding two:normal", "user:after merge:normal"}
	if !slices.Equal(texts, wantTexts) {
		t.Errorf("compile:\n%s\nwant:\n%s", strings.Join(texts, "\n"), strings.Join(wantTexts, "\n"))
	}
	blame, err := r.Blame(ctx, "main", tract.CompileOptions{})
	if err != nil || len(blame) != 10 || blame[7].Tract != "research" || strings.Join(blame[7].SpawnPath, ">") != "main>research" {
		t.Fatalf("blame = %+v, %v: message 7 is research's (spawned from main)", blame, err)
	}
	// Positions: HEAD is 7 first parents deep and 11 commits high.
	head, err := r.Show(ctx, "main", "HEAD")
	if err != nil || head.Commit.Pos.Depth != 7 || head.Commit.Pos.Gen != 11 {
		t.Fatalf("HEAD = %+v, %v: want depth 7, generation 11", head.Commit.Pos, err)
	}
	sh, err := r.Show(ctx, "main", "HEAD~4")
	if err != nil || sh.Commit.Hash.Short() != "47e10e1f" {
		t.Fatalf("HEAD~4 = %v, %v: want 47e10e1f (first parents: the merges, main goes on)", sh.Commit.Hash.Short(), err)
	}

	// A second read finds an up-to-date store: the file does not change.
	s.Close()
	before, _ := os.ReadFile(p)
	s2, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("a read of an up-to-date store changed the file")
	}
}

// TestReadOfUnwritableOldStore: an old store the user cannot write fails
// a read-only open the same way (tract.ErrOldSchema, nothing written), and
// a writable open fails naming the file. Tests run as root, whom
// permissions do not stop: the file is made immutable (chattr +i).
func TestReadOfUnwritableOldStore(t *testing.T) {
	ctx := context.Background()
	for _, what := range []string{"file", "directory"} {
		t.Run(what, func(t *testing.T) {
			p := copyFixture(t)
			before, _ := os.ReadFile(p)
			frozen := p
			if what == "directory" {
				frozen = filepath.Dir(p)
			}
			if runtime.GOOS == "windows" {
				t.Skipf("needs a %s even its owner cannot write (chattr +i here): Windows has no immutable attribute, and its read-only attribute does not stop a directory's files from changing", what)
			}
			if out, err := exec.Command("chattr", "+i", frozen).CombinedOutput(); err != nil {
				t.Skipf("cannot make the %s immutable: %v %s", what, err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", frozen).Run() })
			openOld(t, p)
			w, err := sqlite.Open(ctx, p, sqlite.Options{})
			if err == nil {
				w.Close()
				t.Fatal("a writable open migrated an immutable v1 store; want an error")
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name %s", err, p)
			}
			if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
				t.Error("the failed migration changed the file")
			}
		})
	}
}

// envUpgradeReader names the store a reader process of
// TestConcurrentUpgrade opens.
const envUpgradeReader = "LINEAGE_SQLITE_UPGRADE_READER"

// oldSchemaExit is the exit code of a reader process whose read-only open
// met the store before a writer migrated it.
const oldSchemaExit = 7

// readOldStore is such a reader: a read-only open (which never migrates),
// then the released store's log of main.
func readOldStore(db string) error {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db, sqlite.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer s.Close()
	log, err := tract.New(s, tract.Options{}).Log(ctx, "main", tract.LogOptions{All: true})
	if err != nil {
		return err
	}
	if len(log) < 12 {
		return fmt.Errorf("log of main: %d commits, want at least the released store's 12", len(log))
	}
	return nil
}

// TestConcurrentUpgrade: processes that open the same released store at
// once — six readers and two writers. The writers migrate it once between
// them and all succeed; a reader fails only with tract.ErrOldSchema (when
// it came before the migration); readers after all succeed, and the store
// verifies with every commit placed.
func TestConcurrentUpgrade(t *testing.T) {
	ctx := context.Background()
	p := copyFixture(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reader := func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), envUpgradeReader+"="+p)
		return cmd
	}
	var cmds []*exec.Cmd
	for i := 0; i < 8; i++ {
		if i < 6 {
			cmds = append(cmds, reader())
			continue
		}
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LINEAGE_STORETEST_ROLE=append", "LINEAGE_STORETEST_DSN="+p,
			"LINEAGE_STORETEST_ARG=main", "LINEAGE_STORETEST_N=5")
		cmds = append(cmds, cmd)
	}
	outs := make([][]byte, len(cmds))
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	refused := 0
	for i := range cmds {
		var ee *exec.ExitError
		if i < 6 && errors.As(errs[i], &ee) && ee.ExitCode() == oldSchemaExit {
			refused++
			continue
		}
		if errs[i] != nil {
			t.Errorf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	t.Logf("%d of 6 readers came before the migration", refused)
	for i := range 6 {
		if out, err := reader().CombinedOutput(); err != nil {
			t.Errorf("reader %d after the writers: %v\n%s", i, err, out)
		}
	}
	s, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := tract.New(s, tract.Options{}).Verify(ctx)
	if err != nil || len(rep.Damage) != 0 || rep.Commits != 12+2*5 {
		t.Fatalf("verify = %+v, %v: want the released 12 commits and the writers' 10, no damage", rep, err)
	}
	var unplaced int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM commits WHERE gen IS NULL`).Scan(&unplaced); err != nil || unplaced != 0 {
		t.Fatalf("%d commits without a position (%v)", unplaced, err)
	}
}

// v4Shape turns a store back into schema version 4 (the previous release):
// no compile checkpoints, no time index.
const v4Shape = v8Revert + v7Revert + `DROP TABLE compiled_views;
	DROP INDEX commits_tract_time;
	UPDATE schema_version SET version = 4;`

// TestUpgradeFromV4: a store of the previous schema migrates to this one,
// keeps its history, and then compiles through a stored checkpoint; the
// compile equals the one made before the upgrade.
func TestUpgradeFromV4(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(ctx, p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	r := tract.New(s, tract.Options{NoCheckpoints: true})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, 300)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	want, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, v4Shape); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true}); !errors.Is(err, tract.ErrOldSchema) {
		t.Fatalf("read-only open of a v4 store: %v, want ErrOldSchema", err)
	}
	w, err := sqlite.Open(ctx, p, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if from, to := w.Migrated(); from != 4 || to != sqlite.SchemaVersion {
		t.Fatalf("Migrated() = %d, %d; want 4, %d", from, to, sqlite.SchemaVersion)
	}
	for i := 0; i < 2; i++ { // the first stores the checkpoint, the second reads it
		got, err := tract.New(w, tract.Options{}).CompileCold(ctx, "main", tract.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Tokens != want.Tokens || len(got.Messages) != len(want.Messages) || got.Head != want.Head {
			t.Fatalf("compile %d after the upgrade: %d tokens, %d messages; want %d, %d", i+1, got.Tokens, len(got.Messages), want.Tokens, len(want.Messages))
		}
	}
	var n int
	if err := w.DB().QueryRowContext(ctx, `SELECT count(*) FROM compiled_views`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d compile checkpoints (%v), want 1", n, err)
	}
	if found, err := tract.New(w, tract.Options{}).Find(ctx, "main", tract.FindOptions{Text: "message", Limit: 3}); err != nil || len(found) != 3 {
		t.Fatalf("find after the upgrade: %d, %v", len(found), err)
	}
}
