package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// v7Revert turns a store of schema version 7 back into version 6: no
// pending words table, the reflog's AUTOINCREMENT back. Blobs still
// pending must be indexed first (indexPending).
const v7Revert = `DROP TABLE unindexed;
	CREATE TABLE reflog_v6 (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		tract TEXT NOT NULL,
		ref TEXT NOT NULL,
		old TEXT NOT NULL,
		new TEXT NOT NULL,
		operation TEXT NOT NULL,
		time INTEGER NOT NULL
	);
	INSERT INTO reflog_v6 SELECT seq, tract, ref, old, new, operation, time FROM reflog;
	DROP TABLE reflog;
	ALTER TABLE reflog_v6 RENAME TO reflog;
	CREATE INDEX reflog_time ON reflog(time);`

// v8Revert turns a store of schema version 8 back into version 7: a
// checkpoint's messages in one column (the checkpoints go, a cache).
const v8Revert = `DROP TABLE compiled_view_pieces;
	DROP TABLE compiled_views;
	CREATE TABLE compiled_views (viewer TEXT NOT NULL, encoding TEXT NOT NULL, head BLOB NOT NULL,
		ann_seq INTEGER NOT NULL, tokens INTEGER NOT NULL, format INTEGER NOT NULL, sum BLOB NOT NULL,
		messages_sum BLOB NOT NULL, data_sum BLOB NOT NULL, messages BLOB NOT NULL, data BLOB NOT NULL,
		PRIMARY KEY (viewer, encoding));
	CREATE INDEX compiled_views_head ON compiled_views(head);`

// shapes[v] turns a store of the current schema back into version v (each
// on top of the one after it): what every released schema looked like.
var shapes = map[int]string{
	7: v8Revert + `UPDATE schema_version SET version = 7;`,
	6: v7Revert + `UPDATE schema_version SET version = 6;`,
	5: `DROP TABLE compiled_views;
		CREATE TABLE compiled_views (viewer TEXT NOT NULL, encoding TEXT NOT NULL, head BLOB NOT NULL,
			ann_seq INTEGER NOT NULL, tokens INTEGER NOT NULL, format INTEGER NOT NULL, sum BLOB NOT NULL,
			data_sum BLOB NOT NULL, data BLOB NOT NULL, PRIMARY KEY (viewer, encoding));
		CREATE INDEX compiled_views_head ON compiled_views(head);
		UPDATE schema_version SET version = 5;`,
	4: `DROP TABLE compiled_views;
		DROP INDEX commits_tract_time;
		UPDATE schema_version SET version = 4;`,
	3: `DROP TABLE blob_words;
		ALTER TABLE commits DROP COLUMN meta;
		UPDATE schema_version SET version = 3;`,
	2: `DROP TABLE settings;
		UPDATE schema_version SET version = 2;`,
	1: `ALTER TABLE commits DROP COLUMN jump;
		ALTER TABLE commits DROP COLUMN depth;
		ALTER TABLE commits DROP COLUMN gen;
		UPDATE schema_version SET version = 1;`,
}

// shapeOf is the statements that turn a current store into version v.
func shapeOf(v int) string {
	var b strings.Builder
	for w := sqlite.SchemaVersion - 1; w >= v; w-- {
		if w == 5 && v < 5 {
			continue // version 4 drops the checkpoints whatever their layout
		}
		b.WriteString(shapes[w])
	}
	return b.String()
}

// indexPending puts the words of the blobs a small write left pending into
// the index, as an older schema held them.
func indexPending(t *testing.T, s *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.DB().QueryContext(ctx, `SELECT u.id, b.data FROM unindexed u JOIN blobs b ON b.id = u.id`)
	if err != nil {
		t.Fatal(err)
	}
	words := map[int64]string{}
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			t.Fatal(err)
		}
		words[id] = strings.Join(tract.IndexWords(data), " ")
	}
	rows.Close()
	for id, w := range words {
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO blob_words (rowid, words) VALUES (?, ?)`, id, w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM unindexed`); err != nil {
		t.Fatal(err)
	}
}

// versionedHistory writes a history on every kind of row the schemas
// hold: an import, small commits (their words left pending), a branch
// merged, a spawned tract merged back, an annotation, a reset (reflog).
func versionedHistory(t *testing.T, p string) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	s, r := createRepo(t, p)
	reqs := make([]tract.CommitRequest, 200)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("imported message ", i)}}
	}
	msg := func(text string) tract.CommitRequest {
		return tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: text}}
	}
	steps := []func() error{
		func() error { _, err := r.Import(ctx, "main", reqs); return err },
		func() error { _, err := r.Commit(ctx, "main", msg("a pending zebrafish")); return err },
		func() error { _, err := r.CreateBranch(ctx, "main", "side", "HEAD~3"); return err },
		func() error { return r.Switch(ctx, "main", "side") },
		func() error { _, err := r.Commit(ctx, "main", msg("on the side, an okapi")); return err },
		func() error { return r.Switch(ctx, "main", "main") },
		func() error { _, err := r.Merge(ctx, "main", "side", tract.MergeOptions{NoFF: true}); return err },
		func() error {
			_, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "research"})
			return err
		},
		func() error { _, err := r.Commit(ctx, "kid", msg("the kid found a zebrafish too")); return err },
		func() error { _, err := r.MergeFrom(ctx, "kid", ""); return err },
		func() error { _, err := r.Annotate(ctx, "main", "HEAD~2", tract.Important, "keep"); return err },
		func() error { _, err := r.Commit(ctx, "main", msg("to be reset")); return err },
		func() error { _, err := r.Reset(ctx, "main", "HEAD~1"); return err },
		func() error { _, err := r.Commit(ctx, "main", msg("after the reset")); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			s.Close()
			t.Fatalf("step %d: %v", i, err)
		}
	}
	return s
}

// storeState is what a migration must keep: the export of every tract
// (commits, blobs, refs, annotations), the reflog's rows and what find
// returns for a word of the pending commits.
func storeState(t *testing.T, s *sqlite.Store) string {
	t.Helper()
	ctx := context.Background()
	r := tract.New(s, tract.Options{})
	var b bytes.Buffer
	if _, err := r.Export(ctx, &b, tract.ExportOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.DB().QueryContext(ctx, `SELECT seq, tract, ref, old, new, operation, time FROM reflog ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var seq, at int64
		var tr, ref, old, nw, op string
		if err := rows.Scan(&seq, &tr, &ref, &old, &nw, &op, &at); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, "reflog", seq, tr, ref, old, nw, op, at)
	}
	rows.Close()
	for _, word := range []string{"zebrafish", "okapi", "imported 17"} {
		found, err := r.Find(ctx, "main", tract.FindOptions{Text: word, AllTracts: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			fmt.Fprintf(&b, "find %q: %s %s %s\n", word, f.Tract, f.Commit.Hash.Short(), f.Content.Text)
		}
	}
	return b.String()
}

// TestUpgradeFromEveryVersion: a store turned back into each earlier
// schema version is refused by a read-only open, migrated by a writable one
// from that version, and then holds what it held (export, reflog, search),
// verifies clean, keeps no AUTOINCREMENT counter for the reflog, and takes
// new commits (the reflog's seq growing on).
func TestUpgradeFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	for v := 1; v < sqlite.SchemaVersion; v++ {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "lineage.db")
			s := versionedHistory(t, p)
			want := storeState(t, s)
			var pending int
			if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM unindexed`).Scan(&pending); err != nil || pending == 0 {
				t.Fatalf("%d blobs with pending words (%v): the small commits should leave theirs pending", pending, err)
			}
			if strings.Count(want, `find "zebrafish"`) != 2 || strings.Count(want, `find "okapi"`) != 1 || strings.Count(want, `find "imported 17"`) != 1 {
				t.Fatalf("find before the downgrade, from the index and the pending words:\n%s", want)
			}
			indexPending(t, s)
			if _, err := s.DB().ExecContext(ctx, shapeOf(v)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if _, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true}); !errors.Is(err, tract.ErrOldSchema) {
				t.Fatalf("read-only open of a v%d store: %v, want ErrOldSchema", v, err)
			}
			w, err := sqlite.Open(ctx, p, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if from, to := w.Migrated(); from != v || to != sqlite.SchemaVersion {
				t.Fatalf("Migrated() = %d, %d; want %d, %d", from, to, v, sqlite.SchemaVersion)
			}
			checkMigrated(t, w, want)
		})
	}
}

// checkMigrated checks a migrated store against the state before (want)
// and commits on it.
func checkMigrated(t *testing.T, w *sqlite.Store, want string) {
	t.Helper()
	ctx := context.Background()
	if got := storeState(t, w); got != want {
		t.Fatalf("after the migration:\n%s\nwant:\n%s", got, want)
	}
	r := tract.New(w, tract.Options{})
	if rep, err := r.Verify(ctx); err != nil || len(rep.Damage) != 0 {
		t.Fatalf("verify after the migration: %+v, %v", rep, err)
	}
	var counters int
	if err := w.DB().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_sequence WHERE name = 'reflog'`).Scan(&counters); err != nil || counters != 0 {
		t.Fatalf("%d AUTOINCREMENT counters of the reflog (%v), want none", counters, err)
	}
	var last int64
	if err := w.DB().QueryRowContext(ctx, `SELECT max(seq) FROM reflog`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: "after the migration, a quokka"}}); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	rows, err := w.DB().QueryContext(ctx, `SELECT seq FROM reflog WHERE seq > ? ORDER BY seq`, last)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var q int64
		rows.Scan(&q)
		seqs = append(seqs, q)
	}
	rows.Close()
	if !slices.Equal(seqs, []int64{last + 1}) {
		t.Fatalf("the commit after the migration logged seqs %v, want [%d]", seqs, last+1)
	}
	found, err := r.Find(ctx, "main", tract.FindOptions{Text: "quokka"})
	if err != nil || len(found) != 1 {
		t.Fatalf("find of the new commit's word: %d hits, %v", len(found), err)
	}
}

// envMigrator names the store a migrating process of
// TestKilledMigrationFinishes opens writable: it prints a line, opens the
// store (which migrates it) and closes it.
const envMigrator = "LINEAGE_SQLITE_MIGRATOR"

func migrateStore(db string) {
	fmt.Println("opening")
	s, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s.Close()
	os.Exit(0)
}

// TestKilledMigrationFinishes kills processes (SIGKILL) while they migrate
// a store of schema version 1 with thousands of commits, at a spread of
// moments after they start: after every kill the store reads as version 1
// (refused read-only, as an old schema is) or as the current one, never
// anything between; the next writable open finishes the migration and the
// store holds what it held, verifies clean and takes commits.
func TestKilledMigrationFinishes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Process.Kill is not SIGKILL on Windows")
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s := versionedHistory(t, p)
	n := 6_000
	if testing.Short() {
		n = 2_000
	}
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("bulk message ", i)}}
	}
	if _, err := tract.New(s, tract.Options{}).Import(ctx, "kid", reqs); err != nil {
		t.Fatal(err)
	}
	want := storeState(t, s)
	indexPending(t, s)
	if _, err := s.DB().ExecContext(ctx, shapeOf(1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	migrator := func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), envMigrator+"="+p)
		return cmd
	}
	old, killed := 0, 0
	for _, d := range []time.Duration{0, 1, 3, 8, 15, 30, 60, 120, 250, 500} {
		cmd := migrator()
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line := make([]byte, len("opening\n"))
		io.ReadFull(out, line)
		time.Sleep(d * time.Millisecond)
		if cmd.Process.Kill() == nil {
			killed++
		}
		cmd.Wait()
		ro, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
		switch {
		case errors.Is(err, tract.ErrOldSchema):
			old++
		case err != nil:
			t.Fatalf("after a kill %v into the migration: %v", d*time.Millisecond, err)
		default:
			ro.Close()
		}
	}
	t.Logf("%d migrating processes killed, %d of them left the store at version 1 (the others had finished)", killed, old)
	if out, err := migrator().CombinedOutput(); err != nil {
		t.Fatalf("the migration after the kills: %v\n%s", err, out)
	}
	w, err := sqlite.Open(ctx, p, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if from, _ := w.Migrated(); from != sqlite.SchemaVersion {
		t.Fatalf("the store is at version %d after the last migration, want %d", from, sqlite.SchemaVersion)
	}
	var unplaced int
	if err := w.DB().QueryRowContext(ctx, `SELECT count(*) FROM commits WHERE gen IS NULL`).Scan(&unplaced); err != nil || unplaced != 0 {
		t.Fatalf("%d commits without a position (%v)", unplaced, err)
	}
	checkMigrated(t, w, want)
}
