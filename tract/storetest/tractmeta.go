package storetest

import (
	"errors"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"TractMetaRoundTrips", testTractMeta},
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
