//go:build unix

package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/internal/swaptest"
	"github.com/google/go-cmp/cmp"
)

// The agent's context directory is swapped, over and over, with a symbolic
// link to a directory outside the repository while writers append (issue
// 31: entries, locks and temporary files landed outside, acknowledged
// entries were lost). Through the root nothing is written outside, and
// every acknowledged entry is in the document.
func TestAppendUnderSymlinkSwap(t *testing.T) {
	root, outside := tempRoot(t), tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>"})
	write(t, outside, map[string]string{"secret.txt": "outside\n"})
	opts := Options{Agents: agents.Options{Path: root}}
	first, err := Append(context.Background(), opts, Entry{Slug: "s", Note: "first", Signature: "-x"})
	if err != nil {
		t.Fatal(err)
	}
	ctxDir := filepath.Dir(first.File)
	decoy := filepath.Join(filepath.Dir(ctxDir), "decoy")
	platformtest.Symlink(t, outside, decoy)
	before := swaptest.Tree(t, outside)
	sw := swaptest.Start(t, ctxDir, decoy, 10*time.Second)
	var mu sync.Mutex
	var acked []string
	refused := 0
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 40 {
				res, err := Append(context.Background(), opts, Entry{Slug: "s", Note: fmt.Sprintf("w%d-%d", w, i), Signature: "-x"})
				mu.Lock()
				if err == nil && res.Written {
					acked = append(acked, res.Entry.Str("id"))
				} else {
					refused++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sw.Stop()
	t.Logf("%d swaps, %d acknowledged, %d refused", sw.Swaps(), len(acked), refused)
	if diff := cmp.Diff(before, swaptest.Tree(t, outside)); diff != "" {
		t.Errorf("the outside directory changed (-before +after):\n%s", diff)
	}
	ids := entryIndex(readDoc(t, first.File).Get("entries"))
	for _, id := range acked {
		if !ids[id] {
			t.Errorf("acknowledged entry %s is lost", id)
		}
	}
}

// swapRun sets up a repository whose agent context s holds files, and a
// directory outside holding the same files; it swaps the context with a
// link to the outside directory in a loop while op runs n times, then
// checks that the outside directory is byte for byte as it was.
func swapRun(t *testing.T, files map[string]string, n int, op func(root string, i int)) (root, ctxDir string) {
	return swapRun2(t, files, files, n, op)
}

// swapRun2 is swapRun with other files outside.
func swapRun2(t *testing.T, files, outsideFiles map[string]string, n int, op func(root string, i int)) (root, ctxDir string) {
	t.Helper()
	root, outside := tempRoot(t), tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>"})
	ctxDir = filepath.Join(root, ".clia", "agents", "s")
	for name, body := range files {
		write(t, ctxDir, map[string]string{name: body})
	}
	for name, body := range outsideFiles {
		write(t, outside, map[string]string{name: body})
	}
	decoy := filepath.Join(root, ".clia", "agents", "decoy")
	platformtest.Symlink(t, outside, decoy)
	before := swaptest.Tree(t, outside)
	sw := swaptest.Start(t, ctxDir, decoy, 10*time.Second)
	for i := range n {
		op(root, i)
	}
	sw.Stop()
	if diff := cmp.Diff(before, swaptest.Tree(t, outside)); diff != "" {
		t.Errorf("after %d swaps the outside directory changed (-before +after):\n%s", sw.Swaps(), diff)
	}
	return root, ctxDir
}

const unsortedAgenda = `{"schemaVersion":"0.4.0","slug":"s","milestones":[{"title":"b","status":"done"},{"title":"a","status":"planned"}]}` + "\n"

func TestNormalizeUnderSymlinkSwap(t *testing.T) {
	swapRun(t, map[string]string{"s@x.agenda.triad.json": unsortedAgenda}, 150, func(root string, _ int) {
		Normalize(context.Background(), Options{Agents: agents.Options{Path: root}}, Tidy{Slug: "s", Write: true})
	})
}

func TestMigrateUnderSymlinkSwap(t *testing.T) {
	swapRun(t, map[string]string{"s.agent.json": `{"$schemaVersion":"0.3.0","slug":"s"}` + "\n"}, 150, func(root string, _ int) {
		Migrate(context.Background(), Options{Agents: agents.Options{Path: root}}, Tidy{Slug: "s", Write: true})
	})
}

// Mirrors never render a document read outside, nor write outside.
func TestMirrorsUnderSymlinkSwap(t *testing.T) {
	const name = "s@x.agent.triad.json"
	mirrored := 0
	root, ctxDir := swapRun2(t,
		map[string]string{name: `{"schemaVersion":"0.4.0","slug":"s","guardrails":["inside"]}` + "\n"},
		map[string]string{name: `{"schemaVersion":"0.4.0","slug":"s","guardrails":["SECRET"]}` + "\n"},
		150, func(root string, _ int) {
			ms, err := Mirrors(Options{Agents: agents.Options{Path: root}}, []string{"s"}, false)
			for _, m := range ms {
				if data, _ := os.ReadFile(m.File); err == nil && strings.Contains(string(data), "SECRET") {
					t.Fatalf("a mirror rendered the outside document: %s", m.File)
				}
			}
			if err == nil && len(ms) > 0 {
				mirrored++
			}
		})
	t.Logf("%d runs mirrored", mirrored)
	if _, err := Mirrors(Options{Agents: agents.Options{Path: root}}, []string{"s"}, false); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(ctxDir, ".generated", "s.agent.triad.md")); err != nil || !strings.Contains(string(data), "inside") {
		t.Errorf("mirror after the swaps: %s, %v", data, err)
	}
}

// Commissioning agents while the agents root is swapped with a link
// outside: nothing is created outside, and every agent reported created
// exists inside.
func TestCommissionUnderSymlinkSwap(t *testing.T) {
	root, outside := tempRoot(t), tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/keep": "<dir>"})
	agentsRoot := filepath.Join(root, ".clia", "agents")
	decoy := filepath.Join(root, ".clia", "decoy")
	platformtest.Symlink(t, outside, decoy)
	before := swaptest.Tree(t, outside)
	sw := swaptest.Start(t, agentsRoot, decoy, 10*time.Second)
	var created []string
	for i := range 100 {
		res, err := Commissioned(context.Background(), Options{Agents: agents.Options{Path: root}}, Commission{Slug: fmt.Sprintf("a%d", i), Title: "A"})
		if err == nil {
			for _, f := range res.Files {
				if f.State == "created" {
					created = append(created, f.File)
				}
			}
		}
	}
	sw.Stop()
	t.Logf("%d swaps, %d files created", sw.Swaps(), len(created))
	if diff := cmp.Diff(before, swaptest.Tree(t, outside)); diff != "" {
		t.Errorf("the outside directory changed (-before +after):\n%s", diff)
	}
	for _, f := range created {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("reported created, not there: %v", err)
		}
	}
	if _, err := Commissioned(context.Background(), Options{Agents: agents.Options{Path: root}}, Commission{Slug: "after", Title: "A"}); err != nil {
		t.Errorf("commission after the swaps: %v", err)
	}
}
