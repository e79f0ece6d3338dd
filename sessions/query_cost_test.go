package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// countedSessions is a sessions store of n sessions of three messages on a
// counting store; sessions 1 and 2 (and no other) hold "zebrafish", and
// the importer's index tract holds a cursor a session.
func countedSessions(t *testing.T, n int) (*storetest.Counting, *tract.Repo) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "s.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := storetest.NewCounting(st)
	t.Cleanup(func() { cs.Close() })
	repo := tract.New(cs, tract.Options{})
	if _, err := repo.NewTract(ctx, IndexTract); err != nil {
		t.Fatal(err)
	}
	cursors := map[string]string{}
	for s := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", s)
		name := TractName(Claude, id)
		if _, err := repo.NewTract(ctx, name); err != nil {
			t.Fatal(err)
		}
		if err := repo.SetTractMeta(ctx, name, map[string]string{MetaHarness: string(Claude), MetaSession: id,
			MetaCwd: "/repo", MetaTitle: fmt.Sprint("session ", s), MetaStarted: fmt.Sprintf("2026-01-01T%02d:00:00Z", s%24)}); err != nil {
			t.Fatal(err)
		}
		reqs := make([]tract.CommitRequest, 3)
		for m := range reqs {
			text := fmt.Sprintf("message %d of session %d", m, s)
			if m == 1 && (s == 1 || s == 2) {
				text += " zebrafish"
			}
			reqs[m] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: text},
				Meta: fmt.Appendf(nil, `{"harness":"claude","session":%q,"keys":["m%d"],"time":"2026-01-01T%02d:00:%02dZ"}`, id, m, s%24, m)}
		}
		if _, err := repo.AppendTo(ctx, name, tract.DefaultBranch, reqs); err != nil {
			t.Fatal(err)
		}
		cursors[fmt.Sprint("cursor.", s)] = fmt.Sprint(s)
	}
	if err := repo.SetTractMeta(ctx, IndexTract, cursors); err != nil {
		t.Fatal(err)
	}
	repo.Wait()
	return cs, repo
}

// TestListAndFindCost counts store reads: List makes two whatever the
// number of sessions (the tracts, then every session's metadata at once),
// and Find reads the hits, their tracts and their sessions' metadata — the
// same rows in a store of 5 sessions as in one of 60.
func TestListAndFindCost(t *testing.T) {
	ctx := context.Background()
	findRows := map[int]int64{}
	for _, n := range []int{5, 60} {
		cs, repo := countedSessions(t, n)
		cs.Rows()
		cs.Calls()
		list, err := List(ctx, repo, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != n {
			t.Fatalf("listed %d sessions of %d", len(list), n)
		}
		if calls := cs.Calls(); calls != 2 {
			t.Errorf("list of %d sessions made %d store reads, want 2", n, calls)
		}
		// n+1 tracts, five metadata entries a session; none of the index's cursors.
		if rows := cs.Rows(); rows != int64(n+1+5*n) {
			t.Errorf("list of %d sessions read %d rows, want %d", n, rows, n+1+5*n)
		}
		hits, err := Find(ctx, repo, FindOptions{Text: "zebrafish"})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Session.Title != "session 2" || hits[1].Session.Title != "session 1" {
			t.Fatalf("hits over %d sessions: %+v", n, hits)
		}
		if calls := cs.Calls(); calls != 3 {
			t.Errorf("find over %d sessions made %d store reads, want 3 (the search, the tracts, their metadata)", n, calls)
		}
		findRows[n] = cs.Rows()
	}
	// Two hits, their two tracts, five metadata entries each.
	if findRows[5] != 2+2+10 || findRows[60] != findRows[5] {
		t.Errorf("find read %d rows over 5 sessions and %d over 60, want %d for both", findRows[5], findRows[60], 2+2+10)
	}
}
