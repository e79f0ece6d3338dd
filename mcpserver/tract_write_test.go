package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

func TestTractCommitsSharedWithTheLibrary(t *testing.T) {
	path, repo := newStore(t)
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var c tract.Commit
	call(t, cs, "tract_commit", map[string]any{"type": "message", "text": "from mcp", "message": "m1"}, &c)
	if c.Hash == "" || c.Operation != tract.OpAppend || len(c.Parents) != 0 || c.Message != "m1" {
		t.Fatalf("commit = %+v", c)
	}
	// The commit and show's nested commit name the tract (as the CLI's
	// --json does), not its id.
	if c.Tract != "main" {
		t.Fatalf("commit tract = %q, want main", c.Tract)
	}
	var sh tract.Shown
	call(t, cs, "tract_show", map[string]any{"ref": string(c.Hash)}, &sh)
	if sh.Tract != "main" || sh.Commit.Tract != "main" {
		t.Fatalf("show tract = %q, commit tract = %q, want main", sh.Tract, sh.Commit.Tract)
	}
	var e tract.CommitResult
	call(t, cs, "tract_edit", map[string]any{"ref": string(c.Hash), "text": "from mcp, edited"}, &e)
	if e.Tract != "main" || e.Operation != tract.OpEdit || e.Tokens <= 0 || e.Budget != nil {
		t.Fatalf("edit = %+v", e)
	}
	var hist tract.EditHistory
	call(t, cs, "tract_edit_history", map[string]any{"ref": string(e.Hash)}, &hist)
	if hist.Target != c.Hash || hist.Current != 1 || len(hist.Versions) != 2 || hist.Versions[0].Content.Text != "from mcp" || hist.Versions[1].Commit != e.Hash {
		t.Fatalf("edit history = %+v", hist)
	}
	var back tract.CommitResult
	call(t, cs, "tract_edit", map[string]any{"ref": string(c.Hash), "restore": 0}, &back)
	if back.EditTarget != c.Hash || back.Content != c.Content {
		t.Fatalf("restore = %+v", back)
	}
	if msg := callError(t, cs, "tract_edit", map[string]any{"ref": string(c.Hash), "restore": 0}); !strings.Contains(msg, "already") {
		t.Fatalf("restore of the compiled version: %s", msg)
	}
	if msg := callError(t, cs, "tract_edit", map[string]any{"ref": string(c.Hash), "restore": 1, "text": "x"}); !strings.Contains(msg, "not both") {
		t.Fatalf("restore and text: %s", msg)
	}
	call(t, cs, "tract_edit", map[string]any{"ref": string(c.Hash), "restore": 1}, &back)
	if got := logTexts(t, repo, "main"); !slices.Equal(got, []string{"from mcp, edited", "from mcp", "from mcp, edited", "from mcp"}) {
		t.Fatalf("library log = %v", got)
	}

	if _, err := repo.Commit(context.Background(), "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "from the cli"}}); err != nil {
		t.Fatal(err)
	}
	var page LogOutput
	call(t, cs, "tract_log", nil, &page)
	if len(page.Entries) != 5 || page.Entries[0].Summary != "from the cli" || page.Entries[4].Hash != c.Hash || page.NextCursor != "" {
		t.Fatalf("mcp log = %+v", page)
	}
}

func TestTwoServersCommitConcurrentlyWithoutLoss(t *testing.T) {
	path, repo := newStore(t)
	const perServer = 20
	var wg sync.WaitGroup
	for s := range 2 {
		cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perServer {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tract_commit",
					Arguments: map[string]any{"type": "message", "text": fmt.Sprintf("s%d-%d", s, i)}})
				if err != nil || res.IsError {
					t.Errorf("server %d commit %d: %v %s", s, i, err, contentText(res))
					return
				}
			}
		}()
	}
	wg.Wait()
	entries, err := repo.Log(context.Background(), "main", tract.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2*perServer {
		t.Fatalf("%d commits, want %d", len(entries), 2*perServer)
	}
	// One chain: each commit's only parent is the next older one.
	seen := map[string]bool{}
	for i, e := range entries {
		seen[e.Summary] = true
		if i+1 < len(entries) && (len(e.Parents) != 1 || e.Parents[0] != entries[i+1].Hash) {
			t.Fatalf("commit %d is not on one chain: %+v", i, e)
		}
	}
	for s := range 2 {
		for i := range perServer {
			if !seen[fmt.Sprintf("s%d-%d", s, i)] {
				t.Fatalf("lost s%d-%d", s, i)
			}
		}
	}
}
