package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// A coordinator delegates a question to a helper tract and merges the
// answer back by reference.
func Example() {
	dir, err := os.MkdirTemp("", "lineage-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	repo := tract.New(store, tract.Options{Now: func() time.Time { return now }})

	must := func(_ any, err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	say := func(tractName, role, text string) {
		must(repo.Commit(ctx, tractName, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role, Text: text}}))
	}
	_, _, err = repo.Init(ctx)
	must(nil, err)
	must(repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Text: "Be brief."}}))
	say("main", "user", "What is a tract?")
	must(repo.Spawn(ctx, "main", "helper", tract.SpawnOptions{Purpose: "answer the question"}))
	say("helper", "assistant", "A version-controlled context history.")
	must(repo.MergeFrom(ctx, "helper", ""))
	say("main", "assistant", "Thanks, helper.")

	res, err := repo.Compile(ctx, "main", tract.CompileOptions{})
	must(nil, err)
	for _, m := range res.Messages {
		fmt.Printf("%-9s %-6s %s\n", m.Role, m.Tract, m.Content)
	}
	fmt.Println(res.Tokens, "tokens")
	// Output:
	// system    main   Be brief.
	// user      main   What is a tract?
	// assistant helper A version-controlled context history.
	// assistant main   Thanks, helper.
	// 33 tokens
}
