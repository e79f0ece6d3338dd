package compose_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
)

// countingFS counts what the instruction loader asks of the filesystem.
type countingFS struct {
	instructions.FS
	calls atomic.Int64
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) {
	c.calls.Add(1)
	return c.FS.Stat(name)
}

func (c *countingFS) Lstat(name string) (fs.FileInfo, error) {
	c.calls.Add(1)
	return c.FS.Lstat(name)
}

func (c *countingFS) OpenRegular(name string) (io.ReadCloser, error) {
	c.calls.Add(1)
	return c.FS.OpenRegular(name)
}

// agedTree sets every file and directory under dir an hour back, out of
// the racy window (fsx.RacyWindow) in which nothing is reused.
func agedTree(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// With Sources, a second compile for the same directory asks the
// filesystem nothing through the loader (the chain is reused, its trail
// checked by stat alone) and gives what a compile without Sources gives;
// after an edit (same size), a removal, or a new project marker below the
// old root, the next compile reads again and gives the new chain, again
// what a compile without Sources gives.
func TestSourcesReuseTheChainUntilItChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "root rules\n",
		"sub/AGENTS.md": "sub rules\n", "sub/deep/AGENTS.md": "deep rules\n"})
	agedTree(t, dir)
	counting := &countingFS{FS: instructions.OS}
	src := compose.NewSources()
	o := compose.Options{Target: "sub/deep", Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir, FS: counting}}
	// compile compiles with and without Sources and returns how many
	// times the one with Sources asked the filesystem.
	compile := func(want int, contains, lacks string) int64 {
		t.Helper()
		plain, err := compose.Compile(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		with := o
		with.Sources = src
		before := counting.calls.Load()
		res, err := compose.Compile(ctx, with)
		asked := counting.calls.Load() - before
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(plain, res); diff != "" {
			t.Fatalf("with Sources (-without +with):\n%s", diff)
		}
		text := res.Messages[0].Content
		if !strings.Contains(text, contains) || (lacks != "" && strings.Contains(text, lacks)) {
			t.Fatalf("chain without %q or with %q:\n%s", contains, lacks, text)
		}
		if src.Reads() != want {
			t.Fatalf("sources read %d times, want %d", src.Reads(), want)
		}
		return asked
	}
	// Reused, the chain costs the filesystem one question: the target's
	// stat (is it a directory), which every compile asks.
	if read, reused := compile(1, "sub rules", ""), compile(1, "sub rules", ""); read < 10 || reused != 1 {
		t.Errorf("the filesystem was asked %d times reading the chain, %d times reusing it", read, reused)
	}

	platformtest.WriteTree(t, dir, map[string]string{"sub/AGENTS.md": "SUB RULES\n"})
	compile(2, "SUB RULES", "sub rules")
	agedTree(t, dir)
	compile(3, "SUB RULES", "")
	compile(3, "SUB RULES", "")

	if err := os.Remove(filepath.Join(dir, "sub", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	agedTree(t, dir)
	compile(4, "deep rules", "SUB RULES")
	compile(4, "root rules", "SUB RULES")

	platformtest.WriteTree(t, dir, map[string]string{"sub/deep/.git": "gitdir: ../../.git/modules/deep\n"})
	agedTree(t, dir)
	compile(5, "deep rules", "root rules")
	compile(5, "deep rules", "root rules")
}
