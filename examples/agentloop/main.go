package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Usage: agentloop [--dir DIR] [--store FILE] [--model M] [--slug S] [--budget N]
// then type messages, one a line. OPENAI_API_KEY and OPENAI_BASE_URL are
// read by the SDK. The memory is DIR/.lineage/lineage.db unless --store
// names another file; it says where on start.
func main() {
	dir := flag.String("dir", ".", "the project directory the agent works in")
	store := flag.String("store", "", "the tract store (SQLite file; default DIR/.lineage/lineage.db)")
	model := flag.String("model", "gpt-4.1-mini", "the model")
	slug := flag.String("slug", "", "the agent's slug (its profile joins the system part)")
	budget := flag.Int("budget", 32000, "tokens a request may use")
	flag.Parse()
	cfg := config{Dir: *dir, Store: *store, Model: *model, Slug: *slug, Budget: *budget}
	if err := run(context.Background(), cfg, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
}

// config is what the command line says.
type config struct {
	Dir, Store, Model, Slug string
	Budget                  int
}

// run talks with the model, one turn per line of in, until in ends.
func run(ctx context.Context, cfg config, in io.Reader, out, errOut io.Writer) error {
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return err
	}
	store := cfg.Store
	if store == "" {
		store = filepath.Join(abs, ".lineage", "lineage.db")
	}
	mem, err := OpenMemory(ctx, store, abs)
	if err != nil {
		return err
	}
	defer mem.Close()
	fmt.Fprintf(errOut, "agentloop: project %s, memory %s\n", abs, store)
	a := &Agent{Repo: mem.Repo, Tract: mem.Tract, Dir: abs, Slug: cfg.Slug, Model: cfg.Model, Budget: cfg.Budget,
		Client: openai.NewClient(option.WithMaxRetries(2)), Tools: []Tool{ReadFile(abs)}}
	if err := a.Setup(ctx); err != nil {
		return err
	}
	lines := bufio.NewScanner(in)
	for fmt.Fprint(out, "> "); lines.Scan(); fmt.Fprint(out, "> ") {
		answer, err := a.Turn(ctx, lines.Text())
		if err != nil {
			return err
		}
		fmt.Fprintln(out, answer)
	}
	return lines.Err()
}
