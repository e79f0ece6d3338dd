package sqlite_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// walTables names the B-tree (table or index) of every page the WAL of the
// store at p holds, one entry a page (dbstat maps pages to their B-tree).
func walTables(t *testing.T, s *sqlite.Store, p string) []string {
	t.Helper()
	wal, err := os.ReadFile(p + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[uint32]bool{}
	for off := 32; off+24+4096 <= len(wal); off += 24 + 4096 {
		pages[binary.BigEndian.Uint32(wal[off:])] = true
	}
	rows, err := s.DB().QueryContext(context.Background(), `SELECT name, pageno FROM dbstat`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			t.Fatal(err)
		}
		if pages[page] {
			out = append(out, name)
		}
	}
	return out
}

// TestCommitLeavesWordsPending: one commit on a store of 2,000 messages
// writes no page of the full-text index and none of the reflog's
// AUTOINCREMENT counter (10 pages, 13 with a leaf split in a hash index,
// where schema 6 wrote 16 and 22; counted from the WAL); its words are found all the same, before and after the write
// that finds pendingRows blobs pending and indexes them at once.
func TestCommitLeavesWordsPending(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(ctx, p, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A fixed clock makes every hash, and so where the hash indexes split
	// their pages, the same in every run: the page count is exact.
	tick := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	r := tract.New(s, tract.Options{Now: func() time.Time { tick = tick.Add(time.Second); return tick }})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, 2000)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	commit := func(text string) {
		t.Helper()
		if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	found := func(word string) int {
		t.Helper()
		hits, err := r.Find(ctx, "main", tract.FindOptions{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	count := func(query string) int {
		t.Helper()
		var n int
		if err := s.DB().QueryRowContext(ctx, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	indexed := count(`SELECT count(*) FROM blob_words`)
	commit("a narwhal, pending")
	tables := walTables(t, s, p)
	t.Logf("one commit's pages: %d %v", len(tables), tables)
	for _, name := range tables {
		if strings.HasPrefix(name, "blob_words") || name == "sqlite_sequence" {
			t.Errorf("one commit wrote a page of %s", name)
		}
	}
	if len(tables) > 13 {
		t.Errorf("one commit wrote %d pages, want at most 13 (10, and with this clock 3 more for a leaf split in the blobs' hash index)", len(tables))
	}
	if n := found("narwhal"); n != 1 || count(`SELECT count(*) FROM unindexed`) != 1 || count(`SELECT count(*) FROM blob_words`) != indexed {
		t.Fatalf("a pending commit: found %d times, %d pending, index %d rows (was %d)", n, count(`SELECT count(*) FROM unindexed`), count(`SELECT count(*) FROM blob_words`), indexed)
	}
	// The same text again: its blob is stored (pending), so the commit
	// writes no page of the index and the word is found in both commits.
	if _, err := s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	commit("a narwhal, pending")
	for _, name := range walTables(t, s, p) {
		if strings.HasPrefix(name, "blob_words") || name == "unindexed" {
			t.Errorf("a commit of a stored text wrote a page of %s", name)
		}
	}
	if n := found("narwhal"); n != 2 || count(`SELECT count(*) FROM unindexed`) != 1 {
		t.Fatalf("a text committed twice: found %d times, %d pending", n, count(`SELECT count(*) FROM unindexed`))
	}
	for i := 0; i < 64; i++ {
		commit(fmt.Sprint("narwhal number ", i))
		if n := count(`SELECT count(*) FROM unindexed`); n > 64 {
			t.Fatalf("%d blobs pending, more than 64", n)
		}
	}
	if n := found("narwhal"); n != 66 {
		t.Errorf("narwhal found %d times over pending and indexed words, want 66", n)
	}
	if got := count(`SELECT count(*) FROM blob_words`); got < indexed+64 {
		t.Errorf("the index holds %d rows after 66 commits of 65 texts, want the 64 flushed beside the %d", got, indexed)
	}
	// GC of a pending blob drops it from the pending list.
	if _, err := r.Reset(ctx, "main", "HEAD~1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.GC(ctx, tract.GCOptions{Retention: 0}); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM unindexed WHERE id NOT IN (SELECT id FROM blobs)`); n != 0 {
		t.Errorf("%d pending rows of blobs GC removed", n)
	}
}

// TestFindManyWithPending: a word in more blobs than find starts from
// (2,000) is found in a pending blob too, with a limit (the tract's commits
// walked in time order) and without.
func TestFindManyWithPending(t *testing.T) {
	ctx := context.Background()
	s, r := createRepo(t, filepath.Join(t.TempDir(), "lineage.db"))
	defer s.Close()
	reqs := make([]tract.CommitRequest, 2100)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("common ", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	c, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: "common at last"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 5000} {
		hits, err := r.Find(ctx, "main", tract.FindOptions{Text: "common", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2101 || hits[len(hits)-1].Commit.Hash != c.Hash {
			t.Errorf("limit %d: %d hits, want 2101 ending with the pending commit", limit, len(hits))
		}
	}
}
