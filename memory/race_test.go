package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestConcurrentAddsLoseNothing runs two processes adding memories to one
// store (the same scope) at once: every memory is kept.
func TestConcurrentAddsLoseNothing(t *testing.T) {
	per := 8
	if testing.Short() {
		per = 3
	}
	db := filepath.Join(t.TempDir(), "s.db")
	testRepo(t, db) // create it before the race
	cmds := make([]*exec.Cmd, 2)
	outs := make([]strings.Builder, 2)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperAddProcess$")
		cmd.Env = append(os.Environ(), "MEMORY_HELPER_DB="+db, fmt.Sprintf("MEMORY_HELPER_ID=%d", i), fmt.Sprintf("MEMORY_HELPER_N=%d", per))
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i].String())
		}
	}
	ms, err := List(context.Background(), testRepo(t, db), Where{User: "ann", Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2*per {
		t.Fatalf("%d memories kept, want %d: %s", len(ms), 2*per, texts(ms))
	}
}

func TestHelperAddProcess(t *testing.T) {
	db := os.Getenv("MEMORY_HELPER_DB")
	if db == "" {
		t.Skip("helper process")
	}
	var n int
	fmt.Sscan(os.Getenv("MEMORY_HELPER_N"), &n)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	repo := tract.New(st, tract.Options{Now: time.Now})
	for i := range n {
		text := fmt.Sprintf("process %s memory %d", os.Getenv("MEMORY_HELPER_ID"), i)
		if _, err := Add(ctx, repo, AddOptions{Where: Where{User: "ann", Project: "/p"}, Kind: Project, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
}
