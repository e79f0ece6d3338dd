package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// Usage: agentloop [--dir DIR] [--store FILE] [--model M] [--slug S] [--budget N]
// then type messages, one a line. OPENAI_API_KEY and OPENAI_BASE_URL are
// read by the SDK.
func main() {
	dir := flag.String("dir", ".", "the directory the agent works in")
	store := flag.String("store", ".lineage/lineage.db", "the tract store (SQLite file)")
	model := flag.String("model", "gpt-4.1-mini", "the model")
	slug := flag.String("slug", "", "the agent's slug (its profile joins the system part)")
	budget := flag.Int("budget", 32000, "tokens a request may use")
	flag.Parse()
	if err := run(*dir, *store, *model, *slug, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}

func run(dir, store, model, slug string, budget int) error {
	ctx := context.Background()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
		return err
	}
	st, err := sqlite.Open(ctx, store, sqlite.Options{Create: true})
	if err != nil {
		return err
	}
	defer st.Close()
	repo := tract.New(st, tract.Options{})
	if _, _, err := repo.Init(ctx); err != nil {
		return err
	}
	a := &Agent{Repo: repo, Tract: tract.DefaultTract, Dir: abs, Slug: slug, Model: model, Budget: budget,
		Client: openai.NewClient(option.WithMaxRetries(2)), Tools: []Tool{ReadFile(abs)}}
	if err := a.Setup(ctx); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for fmt.Print("> "); in.Scan(); fmt.Print("> ") {
		answer, err := a.Turn(ctx, in.Text())
		if err != nil {
			return err
		}
		fmt.Println(answer)
	}
	return in.Err()
}
