package compose_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
)

// Every tract block's spawn path is tract's (Repo.SpawnPath of the
// message's author tract), compiling a root tract (whose own path the
// compile knows without a look-up) and a spawned one, warm and cold, with
// messages of both authors.
func TestBlockSpawnPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	repo := newRepo(t, dir, nil)
	msg := func(tr, text string) {
		if _, err := repo.Commit(ctx, tr, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	msg("main", "root question")
	if _, err := repo.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "sub-task"}); err != nil {
		t.Fatal(err)
	}
	msg("kid", "kid's work")
	if _, err := repo.Spawn(ctx, "kid", "grandkid", tract.SpawnOptions{Purpose: "deeper"}); err != nil {
		t.Fatal(err)
	}
	msg("grandkid", "grandkid's work")
	if _, err := repo.MergeFrom(ctx, "grandkid", "kid"); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.MergeFrom(ctx, "kid", "main"); err != nil {
		t.Fatal(err)
	}
	msg("main", "root again")
	seen := map[string]bool{}
	for _, name := range []string{"main", "kid", "grandkid"} {
		for _, cold := range []bool{false, true} {
			o := compose.Options{Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
				Repo: repo, Tract: name, Cold: cold}
			res, err := compose.Compile(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range res.Blocks {
				if b.Source != compose.SourceTract {
					continue
				}
				want, err := repo.SpawnPath(ctx, res.Messages[i].TractID)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(b.SpawnPath, want) {
					t.Errorf("%s (cold %v) block %d: spawn path %q, want %q", name, cold, i, b.SpawnPath, want)
				}
				seen[name+">"+b.Tract] = true
			}
		}
	}
	for _, k := range []string{"main>main", "main>kid", "main>grandkid", "kid>kid", "grandkid>grandkid"} {
		if !seen[k] {
			t.Errorf("no block of %s compiled (%v)", k, seen)
		}
	}
}
