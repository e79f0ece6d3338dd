package memory

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

func testRepo(t *testing.T, path string) *tract.Repo {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	return tract.New(st, tract.Options{Now: func() time.Time { now = now.Add(time.Minute); return now }})
}

func mustAdd(t *testing.T, repo *tract.Repo, w Where, k Kind, text string) Memory {
	t.Helper()
	m, err := Add(context.Background(), repo, AddOptions{Where: w, Kind: k, Text: text, Session: "sess-1234567890", Harness: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func texts(ms []Memory) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Text)
	}
	return strings.Join(s, " | ")
}

func TestAddListEditForget(t *testing.T) {
	ctx := context.Background()
	repo := testRepo(t, filepath.Join(t.TempDir(), "s.db"))
	w := Where{User: "ann", Project: filepath.Join(t.TempDir(), "p1")}
	a := mustAdd(t, repo, w, User, "prefers tabs")
	b := mustAdd(t, repo, w, Project, "  the tests need LINEAGE_NOW  ")
	ms, err := List(ctx, repo, w)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(ms); got != "the tests need LINEAGE_NOW | prefers tabs" {
		t.Fatalf("list: %s", got)
	}
	if ms[0].Session != "sess-1234567890" || ms[0].Harness != "claude" || ms[0].Scope != Project || ms[0].Project != w.Project {
		t.Fatalf("provenance: %+v", ms[0])
	}
	e, err := Edit(ctx, repo, w, a.ID, "prefers spaces")
	if err != nil {
		t.Fatal(err)
	}
	if e.Edited.IsZero() || e.Text != "prefers spaces" {
		t.Fatalf("edit: %+v", e)
	}
	ms, _ = List(ctx, repo, w)
	if got := texts(ms); got != "prefers spaces | the tests need LINEAGE_NOW" {
		t.Fatalf("after edit: %s", got)
	}
	if _, err := Forget(ctx, repo, w, string(b.Commit[:6])); err != nil {
		t.Fatal(err)
	}
	ms, _ = List(ctx, repo, w)
	if got := texts(ms); got != "prefers spaces" {
		t.Fatalf("after forget: %s", got)
	}
	// Forgetting is reversible: the commit stays, annotated skip.
	if _, err := repo.Annotate(ctx, b.Tract, string(b.Commit), tract.Normal, "back"); err != nil {
		t.Fatal(err)
	}
	ms, _ = List(ctx, repo, w)
	if len(ms) != 2 {
		t.Fatalf("after restore: %s", texts(ms))
	}
	// The history is the tract's: add, add, edit.
	log, err := repo.Log(ctx, a.Tract, tract.LogOptions{})
	if err != nil || len(log) != 2 || log[0].EditTarget != a.Commit {
		t.Fatalf("log of %s: %+v %v", a.Tract, log, err)
	}
	if _, err := Get(ctx, repo, w, "zz"); err == nil {
		t.Fatal("bad id accepted")
	}
	if _, err := Get(ctx, repo, w, "00000000"); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("missing id: %v", err)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	ctx := context.Background()
	repo := testRepo(t, filepath.Join(t.TempDir(), "s.db"))
	w := Where{User: "ann"}
	for _, c := range []struct {
		k    Kind
		text string
		want string
	}{
		{User, "  ", "empty"},
		{User, "a\x00b", "control character"},
		{User, strings.Repeat("x", MaxTextBytes+1), "the limit is 4096"},
		{Project, "x", "no project folder"},
		{Agent, "x", "no agent"},
		{"team", "x", "want user, project or agent"},
	} {
		_, err := Add(ctx, repo, AddOptions{Where: w, Kind: c.k, Text: c.text})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.k, c.text, err, c.want)
		}
	}
	if _, err := Add(ctx, repo, AddOptions{Where: Where{Project: "/p"}, Kind: Project, Text: "x"}); err == nil || !strings.Contains(err.Error(), "no user name") {
		t.Errorf("no user: %v", err)
	}
	if ts, _ := repo.Tracts(ctx); len(ts) != 0 {
		t.Fatalf("bad input made tracts: %v", ts)
	}
}

// Two projects and two users share a store: each sees its own only.
func TestScopeIsolation(t *testing.T) {
	ctx := context.Background()
	repo := testRepo(t, filepath.Join(t.TempDir(), "s.db"))
	ann1 := Where{User: "ann", Project: "/p1"}
	ann2 := Where{User: "ann", Project: "/p2"}
	bob1 := Where{User: "bob", Project: "/p1"}
	mustAdd(t, repo, ann1, User, "ann everywhere")
	p1 := mustAdd(t, repo, ann1, Project, "p1 only")
	mustAdd(t, repo, ann2, Project, "p2 only")
	mustAdd(t, repo, bob1, User, "bob everywhere")
	mustAdd(t, repo, Where{User: "ann", Slug: "tau"}, Agent, "tau only")
	for _, c := range []struct {
		w    Where
		want string
	}{
		{ann1, "p1 only | ann everywhere"},
		{ann2, "p2 only | ann everywhere"},
		// Bob's store could be Ann's (a shared postgres store): he sees
		// none of her project's or agent's memories.
		{bob1, "bob everywhere"},
		{Where{User: "bob", Project: "/p1", Slug: "tau"}, "bob everywhere"},
		{Where{User: "ann", Project: "/p1", Slug: "tau"}, "tau only | p1 only | ann everywhere"},
	} {
		ms, err := List(ctx, repo, c.w)
		if err != nil {
			t.Fatal(err)
		}
		if got := texts(ms); got != c.want {
			t.Errorf("%+v: %s, want %s", c.w, got, c.want)
		}
		hits, err := Search(ctx, repo, c.w, "only", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if !strings.Contains(c.want, h.Text) {
				t.Errorf("%+v: search found %q of another scope", c.w, h.Text)
			}
		}
	}
	if _, err := Forget(ctx, repo, ann2, p1.ID); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("forget across projects: %v", err)
	}
}

func TestSearchRanks(t *testing.T) {
	ctx := context.Background()
	repo := testRepo(t, filepath.Join(t.TempDir(), "s.db"))
	w := Where{User: "ann", Project: "/p"}
	mustAdd(t, repo, w, User, "run the parser tests before a commit")
	mustAdd(t, repo, w, Project, "the parser stops early; the parser fuzz target finds it")
	old := mustAdd(t, repo, w, Project, "the lexer is slow")
	if _, err := Edit(ctx, repo, w, old.ID, "the lexer feeds the parser"); err != nil {
		t.Fatal(err)
	}
	hits, err := Search(ctx, repo, w, "parser", 0)
	if err != nil {
		t.Fatal(err)
	}
	// Every hit holds every word: the newest (an edit counts) first.
	if got := texts(hitsMem(hits)); got != "the lexer feeds the parser | the parser stops early; the parser fuzz target finds it | run the parser tests before a commit" {
		t.Fatalf("ranked: %s", got)
	}
	if hits, _ := Search(ctx, repo, w, "slow", 0); len(hits) != 0 {
		t.Fatalf("an edited-away text is found: %+v", hits)
	}
	if _, err := Search(ctx, repo, w, "  ", 0); err == nil {
		t.Fatal("empty query accepted")
	}
}

func hitsMem(hs []Hit) []Memory {
	var out []Memory
	for _, h := range hs {
		out = append(out, h.Memory)
	}
	return out
}
