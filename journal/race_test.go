//go:build unix

package journal

import (
	"context"
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
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
