package stores_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// A Go program opens the store a URL names (here a new SQLite file) and
// works on it through a tract.Repo.
func Example() {
	dir, err := os.MkdirTemp("", "lineage-stores")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	store, err := stores.Open(ctx, "sqlite:"+filepath.Join(dir, "lineage.db"), stores.Options{Create: true})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	repo := tract.New(store, tract.Options{})

	if _, _, err := repo.Init(ctx); err != nil {
		log.Fatal(err)
	}
	if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "hello"}}); err != nil {
		log.Fatal(err)
	}
	res, err := repo.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(tract.Text(res.Messages))
	// Output:
	// user: hello
}
