package compose_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// A harness composes the request for its next model turn: the AGENTS.md
// chain where the agent works, then the tract's history, under a budget.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "compose-example")
	defer os.RemoveAll(dir)
	_ = os.Mkdir(filepath.Join(dir, ".git"), 0o755) // the project root's marker
	_ = os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Run the tests before every commit.\n"), 0o644)

	st, err := sqlite.Open(ctx, filepath.Join(dir, "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	repo := tract.New(st, tract.Options{})
	_, _, _ = repo.Init(ctx)
	for _, c := range []tract.Content{
		{Type: tract.TypeInstruction, Text: "You are terse."},
		{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "Fix the failing test."},
	} {
		if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: c}); err != nil {
			fmt.Println(err)
			return
		}
	}

	res, err := compose.Compile(ctx, compose.Options{
		Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir},
		Repo:         repo,
		Tract:        "main",
		Budget:       1000,
		Format:       compose.FormatText,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(filepath.ToSlash(strings.ReplaceAll(res.Request.Text, dir, "$DIR")))
	// Token counts depend on the paths in the text: print the sources only.
	for _, b := range res.Blocks {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("block %d: %s part, from %s %s", b.Index, b.Part, b.Source, b.Tract)))
	}
	fmt.Println("within budget:", res.Tokens <= *res.Budget)
	// Output:
	// system: <agents_context scope="initial">
	// Instructions from: $DIR/AGENTS.md
	// Run the tests before every commit.
	// </agents_context>
	//
	// system: You are terse.
	//
	// user: Fix the failing test.
	// block 0: system part, from instructions
	// block 1: system part, from tract main
	// block 2: messages part, from tract main
	// within budget: true
}
