package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/tract"
)

// countingStore counts the commit rows a store reads and writes, and its
// write transactions.
type countingStore struct {
	tract.Store
	read, written, updates atomic.Int64
}

func (s *countingStore) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	cs, err := s.Store.Ancestry(ctx, heads)
	s.read.Add(int64(len(cs)))
	return cs, err
}

func (s *countingStore) History(ctx context.Context, heads []tract.Hash, enc string) ([]tract.HistoryCommit, error) {
	cs, err := s.Store.History(ctx, heads, enc)
	s.read.Add(int64(len(cs)))
	return cs, err
}

func (s *countingStore) ScanCommits(ctx context.Context, fn func(tract.Commit) error) error {
	return s.Store.ScanCommits(ctx, func(c tract.Commit) error {
		s.read.Add(1)
		return fn(c)
	})
}

func (s *countingStore) Update(ctx context.Context, fn func(tx tract.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, func(tx tract.Tx) error { return fn(countingTx{tx, s}) })
}

type countingTx struct {
	tract.Tx
	s *countingStore
}

func (t countingTx) Ancestry(ctx context.Context, heads []tract.Hash) ([]tract.Commit, error) {
	cs, err := t.Tx.Ancestry(ctx, heads)
	t.s.read.Add(int64(len(cs)))
	return cs, err
}

func (t countingTx) PutCommits(ctx context.Context, cs ...tract.Commit) error {
	t.s.written.Add(int64(len(cs)))
	return t.Tx.PutCommits(ctx, cs...)
}

// storedKeys lists the record keys in the meta of every commit the
// tract's refs reach (a fork's origin's shared commits included).
func storedKeys(t *testing.T, repo *tract.Repo, name string) map[string]bool {
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
	keys := map[string]bool{}
	for _, c := range cs {
		var m commitMeta
		if len(c.Meta) > 0 && json.Unmarshal(c.Meta, &m) == nil {
			for _, k := range m.Keys {
				keys[k] = true
			}
		}
	}
	return keys
}

// TestEveryRecordLands: for every Claude fixture, every line is a record
// or a counted skip; after the import every record's key is in a commit
// the session's tract reaches (a commit, a summary's metadata, a spawn's
// shared prefix, a branch, the meta branch); a re-import adds nothing.
func TestEveryRecordLands(t *testing.T) {
	dir := unpack(t, "claude")
	for _, fixture := range []string{"claude-2.1.197", "claude-2.1.332", "claude-2.1.332-tui"} {
		t.Run(fixture, func(t *testing.T) {
			repo, _ := newRepo(t)
			ctx := context.Background()
			var srcs []Source
			for _, p := range transcripts(t, filepath.Join(dir, fixture)) {
				srcs = append(srcs, Source{Harness: Claude, Path: p})
			}
			im := &Importer{Repo: repo}
			rep, err := im.Import(ctx, srcs)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range rep.Sessions {
				checkSession(t, repo, s)
			}
			again, err := im.Import(ctx, srcs)
			if err != nil {
				t.Fatal(err)
			}
			if again.Added != 0 || again.Records != 0 {
				t.Errorf("re-import read %d records and added %d commits, want 0 and 0", again.Records, again.Added)
			}
		})
	}
}

// checkSession checks one imported file against its records.
func checkSession(t *testing.T, repo *tract.Repo, s SessionReport) {
	t.Helper()
	checkSessionWith(t, repo, s, ClaudeReader{})
}

// checkSessionWith checks one imported file against what rd reads of it:
// every line is a record or a counted skip, and every record key is in a
// commit the session's tract reaches.
func checkSessionWith(t *testing.T, repo *tract.Repo, s SessionReport, rd Reader) {
	t.Helper()
	data, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	b, err := rd.Read(context.Background(), Source{Harness: rd.Harness(), Path: s.Path}, Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	offsets := map[int64]bool{}
	for _, r := range b.Records {
		offsets[r.Offset] = true
	}
	skipped := 0
	for _, n := range b.Skipped {
		skipped += n
	}
	if len(offsets)+skipped != lines {
		t.Errorf("%s: %d lines, %d as records and %d skipped", s.Session, lines, len(offsets), skipped)
	}
	if s.Added+s.Existing != s.Records {
		t.Errorf("%s: %d records, %d added and %d existing", s.Session, s.Records, s.Added, s.Existing)
	}
	keys := storedKeys(t, repo, s.Tract)
	var missing []string
	for _, r := range b.Records {
		for _, k := range r.Keys {
			if !keys[k] {
				missing = append(missing, k+" ("+r.Type+")")
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: %d record keys in no commit, first %v", s.Session, len(missing), missing[:min(3, len(missing))])
	}
}

// TestGrownTranscriptAddsOnlyItsNewRecords imports a transcript cut after
// each of several lines, then the whole: each import reads no stored
// commit (O(new): the cursor and the last commit are enough) and writes
// exactly one commit row per new record; the result holds the same keys
// as one import of the whole file.
func TestGrownTranscriptAddsOnlyItsNewRecords(t *testing.T) {
	dir := unpack(t, "claude")
	whole := filepath.Join(dir, "claude-2.1.332", ".claude", "projects", "-repo", "22222222-3333-4444-8555-666666666666.jsonl")
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	grown := filepath.Join(t.TempDir(), filepath.Base(whole))
	repo, st := newRepo(t)
	cs := &countingStore{Store: st}
	repo = tract.New(cs, tract.Options{})
	im := &Importer{Repo: repo}
	ctx := context.Background()
	lines := strings.SplitAfter(string(data), "\n")
	cuts := []int{3, 10, 11, 20, 31, len(lines)}
	prev := 0
	total := 0
	for _, cut := range cuts {
		if err := appendFile(grown, strings.Join(lines[prev:cut], "")); err != nil {
			t.Fatal(err)
		}
		prev = cut
		cs.read.Store(0)
		cs.written.Store(0)
		rep, err := im.Import(ctx, []Source{{Harness: Claude, Path: grown}})
		if err != nil {
			t.Fatal(err)
		}
		s := rep.Sessions[0]
		total += s.Added
		if s.IndexReads != 0 || cs.read.Load() != 0 {
			t.Errorf("cut %d: read %d stored commits (index %d), want 0", cut, cs.read.Load(), s.IndexReads)
		}
		if int(cs.written.Load()) != s.Added {
			t.Errorf("cut %d: wrote %d commit rows for %d new records", cut, cs.written.Load(), s.Added)
		}
	}
	once, _ := newRepo(t)
	rep, err := (&Importer{Repo: once}).Import(ctx, []Source{{Harness: Claude, Path: whole}})
	if err != nil {
		t.Fatal(err)
	}
	name := rep.Sessions[0].Tract
	for k, n := range keyCounts(t, repo, name) {
		if n != 1 {
			t.Errorf("key %s stored %d times", k, n)
		}
	}
	a, b := storedKeys(t, repo, name), storedKeys(t, once, name)
	if len(a) != len(b) {
		t.Errorf("grown import holds %d keys, one import %d", len(a), len(b))
	}
	for k := range b {
		if !a[k] {
			t.Errorf("key %s only in the one import", k)
		}
	}
	if total < rep.Added-2 || total > rep.Added+2 {
		// Responses cut between their blocks are two commits instead of one.
		t.Errorf("grown import added %d commits, one import %d", total, rep.Added)
	}
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
