//go:build unix

package hooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/internal/swaptest"
)

// The sessions directory swapped, in a loop, with a symbolic link to a
// directory outside while hook events run: no state, lock or temporary
// file lands outside, and every event is still answered.
func TestHandleUnderSymlinkSwap(t *testing.T) {
	r := repo(t)
	base, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(base, "sessions")
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: dir}
	handle(t, opts, Event{Kind: Start, Name: "SessionStart", SessionID: "s1", Cwd: r})
	if err := os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	decoy := filepath.Join(base, "decoy")
	platformtest.Symlink(t, outside, decoy)
	before := swaptest.Tree(t, outside)
	sw := swaptest.Start(t, dir, decoy, 10*time.Second)
	for i := range 200 {
		ev := Event{Kind: Tool, Name: "PostToolUse", SessionID: "s1", Cwd: r, Paths: []string{"web/src/app.ts"}}
		if i%3 == 0 {
			ev = Event{Kind: Start, Name: "SessionStart", SessionID: "s1", Cwd: r}
		}
		if _, err := Handle(context.Background(), Claude, ev, opts); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	sw.Stop()
	t.Logf("%d swaps", sw.Swaps())
	if diff := cmp.Diff(before, swaptest.Tree(t, outside)); diff != "" {
		t.Errorf("the outside directory changed (-before +after):\n%s", diff)
	}
}
