package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"TractMetaRoundTrips", testTractMeta},
		{"ManyTractsInOneRead", testManyTracts},
		{"FindAllTractsNamesInOneRead", testFindAllTractsCalls},
		{"SpawnAtAnEarlierCommit", testSpawnAt},
		{"AppendToAnotherBranch", testAppendTo},
	})
}

// testTractMeta: a tract's metadata is stored beside its settings, read
// back sorted, replaced and removed by key, kept apart from tract config
// and from other tracts.
func testTractMeta(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	_, err := e.repo.NewTract(e.ctx, "other")
	e.must(err)
	e.must(e.repo.SetTractMeta(e.ctx, "main", map[string]string{"title": "fix the build", "cwd": "/repo", "harness": "claude"}))
	e.must(e.repo.SetTractMeta(e.ctx, "other", map[string]string{"title": "another"}))
	_, err = e.repo.SetConfig(e.ctx, "main", "budget", "1000")
	e.must(err)
	e.must(e.repo.SetTractMeta(e.ctx, "main", map[string]string{"title": "fix the tests", "harness": ""}))
	got, err := e.repo.TractMeta(e.ctx, "main")
	e.must(err)
	want := []tract.TractMeta{{Key: "cwd", Value: "/repo"}, {Key: "title", Value: "fix the tests"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("meta of main = %v, want %v", got, want)
	}
	cfg, err := e.repo.Config(e.ctx, "main")
	e.must(err)
	if cfg.Budget != 1000 {
		t.Errorf("config budget = %d beside the metadata, want 1000", cfg.Budget)
	}
	other, err := e.repo.TractMeta(e.ctx, "other")
	e.must(err)
	if len(other) != 1 || other[0].Value != "another" {
		t.Errorf("meta of other = %v", other)
	}
	var ve *tract.ValidationError
	if err := e.repo.SetTractMeta(e.ctx, "main", map[string]string{"bad key": "x"}); !errors.As(err, &ve) {
		t.Errorf("a key with a space gave %v, want a validation error", err)
	}
	if _, err := e.repo.TractMeta(e.ctx, "nope"); !errors.Is(err, tract.ErrNotFound) {
		t.Errorf("meta of a missing tract gave %v", err)
	}
	// Several tracts in one transaction: all set, or none.
	e.must(e.repo.SetTractsMeta(e.ctx, map[string]map[string]string{"main": {"cwd": "/b"}, "other": {"title": "both"}}))
	for _, bad := range []map[string]map[string]string{
		{"main": {"cwd": "/c"}, "other": {"bad key": "x"}},
		{"main": {"cwd": "/c"}, "nope": {"title": "x"}},
	} {
		if err := e.repo.SetTractsMeta(e.ctx, bad); err == nil {
			t.Errorf("SetTractsMeta(%v) succeeded", bad)
		}
	}
	m, err := e.repo.TractMeta(e.ctx, "main")
	e.must(err)
	o, err := e.repo.TractMeta(e.ctx, "other")
	e.must(err)
	if m[0].Value != "/b" || o[0].Value != "both" {
		t.Errorf("after SetTractsMeta and two refused ones: main %v, other %v; want cwd /b, title both", m, o)
	}
}

// testSpawnAt: a child spawned at an earlier commit of the parent points
// there and, by reference, sees the parent's context up to it only.
func testSpawnAt(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	first := e.user("main", "one")
	e.user("main", "two")
	kid, err := e.repo.Spawn(e.ctx, "main", "kid", tract.SpawnOptions{Purpose: "p", At: string(first)})
	e.must(err)
	if kid.Spawn == nil || kid.Spawn.Commit != first {
		t.Fatalf("spawn pointer = %+v, want commit %s", kid.Spawn, first)
	}
	if got := e.head("kid"); got != first {
		t.Errorf("kid's head = %s, want %s", got, first)
	}
	e.user("kid", "three")
	if got := e.texts("kid"); got != "user: one\nuser: three\n" {
		t.Errorf("kid compiles %q", got)
	}
	if _, err := e.repo.Spawn(e.ctx, "main", "kid2", tract.SpawnOptions{At: "nosuchref"}); err == nil {
		t.Error("spawn at a missing ref succeeded")
	}
}

// testAppendTo: appends on another branch leave HEAD and main alone; a
// missing branch starts at a root.
func testAppendTo(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	head := e.user("main", "one")
	cs, err := e.repo.AppendTo(e.ctx, "main", "side", []tract.CommitRequest{
		{Content: tract.Content{Type: tract.TypeMetadata, Text: "a"}, Meta: []byte(`{"k":1}`)},
		{Content: tract.Content{Type: tract.TypeMetadata, Text: "b"}},
	})
	e.must(err)
	if len(cs) != 2 || len(cs[0].Parents) != 0 || cs[1].Parents[0] != cs[0].Hash || string(cs[0].Meta) != `{"k":1}` {
		t.Fatalf("appended %+v", cs)
	}
	more, err := e.repo.AppendTo(e.ctx, "main", "side", []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeMetadata, Text: "c"}}})
	e.must(err)
	if more[0].Parents[0] != cs[1].Hash {
		t.Errorf("second append's parent %v, want %s", more[0].Parents, cs[1].Hash)
	}
	if got := e.head("main"); got != head {
		t.Errorf("main moved to %s", got)
	}
	_, h, err := e.repo.Head(e.ctx, "main")
	e.must(err)
	if h.Branch != "main" {
		t.Errorf("HEAD is on %q", h.Branch)
	}
	if _, err := e.repo.AppendTo(e.ctx, "main", "bad..name", []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeMetadata, Text: "x"}}}); err == nil {
		t.Error("a bad branch name was taken")
	}
}

// testManyTracts: TractsByID and TractSettings answer for many tracts at
// once — the ids asked for only (a removed tract too, a missing id left
// out), the settings under the prefix only, sorted by tract id then key —
// and ReadTractsMeta groups the metadata by tract.
func testManyTracts(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	ids := map[string]string{"main": mustTract(e, "main").ID}
	for _, name := range []string{"b", "c", "gone"} {
		tr, err := e.repo.NewTract(e.ctx, name)
		e.must(err)
		ids[name] = tr.ID
	}
	for _, name := range []string{"main", "b", "gone"} {
		e.must(e.repo.SetTractMeta(e.ctx, name, map[string]string{"title": "t " + name, "cwd": "/" + name}))
	}
	_, err := e.repo.SetConfig(e.ctx, "b", "budget", "10")
	e.must(err)
	e.must(e.repo.RemoveTract(e.ctx, "gone"))

	ts, err := e.store.TractsByID(e.ctx, []string{ids["gone"], ids["b"], "no-such-id"})
	e.must(err)
	slices.SortFunc(ts, func(a, b tract.Tract) int { return strings.Compare(a.Name, b.Name) })
	if len(ts) != 2 || ts[0].Name != "b" || ts[1].Name != "gone" || ts[1].Deleted.IsZero() || !ts[0].Deleted.IsZero() {
		t.Fatalf("TractsByID = %+v, want b and the removed gone", ts)
	}
	if ts, err := e.store.TractsByID(e.ctx, nil); err != nil || len(ts) != 0 {
		t.Errorf("TractsByID of no id = %v, %v", ts, err)
	}

	asked := []string{ids["main"], ids["b"], ids["c"]}
	got, err := e.store.TractSettings(e.ctx, tract.SettingsQuery{Tracts: asked, Prefix: "meta."})
	e.must(err)
	var want []tract.Setting
	for _, name := range []string{"main", "b"} {
		want = append(want, tract.Setting{Tract: ids[name], Key: "meta.cwd", Value: "/" + name},
			tract.Setting{Tract: ids[name], Key: "meta.title", Value: "t " + name})
	}
	slices.SortStableFunc(want, func(a, b tract.Setting) int { return strings.Compare(a.Tract, b.Tract) })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TractSettings meta. = %v, want %v", got, want)
	}
	all, err := e.store.TractSettings(e.ctx, tract.SettingsQuery{Tracts: []string{ids["b"]}})
	e.must(err)
	if len(all) != 3 || !slices.ContainsFunc(all, func(s tract.Setting) bool { return s.Value == "10" }) {
		t.Errorf("TractSettings of b without a prefix = %v, want its config and metadata", all)
	}
	if none, err := e.store.TractSettings(e.ctx, tract.SettingsQuery{Prefix: "meta."}); err != nil || len(none) != 0 {
		t.Errorf("TractSettings of no tract = %v, %v", none, err)
	}

	meta, err := tract.ReadTractsMeta(e.ctx, e.store, asked)
	e.must(err)
	if len(meta) != 2 || len(meta[ids["c"]]) != 0 || fmt.Sprint(meta[ids["b"]]) != "[{cwd /b} {title t b}]" {
		t.Errorf("ReadTractsMeta = %v", meta)
	}
}

// testFindAllTractsCalls: a search of every tract names the tracts of its
// hits in one read, however many tracts they are in.
func testFindAllTractsCalls(t *testing.T, newStore Factory) {
	ctx := context.Background()
	cs := NewCounting(newStore(t))
	r := tract.New(cs, tract.Options{Now: newClock().Now})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		name := fmt.Sprint("t", i)
		if _, err := r.NewTract(ctx, name); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Commit(ctx, name, message("user", fmt.Sprint("needle ", i))); err != nil {
			t.Fatal(err)
		}
	}
	cs.Calls()
	found, err := r.Find(ctx, "main", tract.FindOptions{Text: "needle", AllTracts: true})
	if err != nil {
		t.Fatal(err)
	}
	if calls := cs.Calls(); calls != 2 {
		t.Errorf("find --all-tracts over 6 tracts made %d store reads, want 2 (the search, the tracts)", calls)
	}
	if len(found) != 6 {
		t.Fatalf("found %d, want 6", len(found))
	}
	for _, f := range found {
		if want := "t" + strings.TrimPrefix(f.Content.Text, "needle "); f.Tract != want {
			t.Errorf("%q found in tract %q, want %q", f.Content.Text, f.Tract, want)
		}
	}
}
