package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	for name, h := range map[string]struct{ readOnly, destructive, idempotent bool }{
		"tract_reset":       {false, true, true},
		"tract_checkout":    {false, false, true},
		"tract_show":        {true, false, true},
		"tract_cherry_pick": {false, false, false},
		"tract_export":      {false, false, true},
	} {
		toolHintsWanted[name] = h
	}
}

// TestAgentCheckpointsAndRewinds: an agent tags a checkpoint, goes on,
// rewinds with tract_reset, looks at the abandoned turn with tract_show,
// brings it back with tract_cherry_pick, detaches and comes back with
// checkout -, filters its log and exports itself — to a file inside its
// roots, never outside them.
func TestAgentCheckpointsAndRewinds(t *testing.T) {
	path, repo := newStore(t)
	commitText(t, repo, "main", "user", "plan the work")
	cwd := t.TempDir()
	cs := connectStdio(t, serverProc{cwd: cwd, store: path}, nil)

	var tag any
	call(t, cs, "tract_tag", map[string]any{"name": "checkpoint"}, &tag)
	var c tract.CommitResult
	call(t, cs, "tract_commit", map[string]any{"type": "message", "role": "assistant", "text": "a risky idea"}, &c)
	var h HeadOutput
	call(t, cs, "tract_reset", map[string]any{"ref": "checkpoint"}, &h)
	if h.Branch != "main" || h.Head == c.Hash {
		t.Fatalf("reset = %+v", h)
	}
	var sh tract.Shown
	call(t, cs, "tract_show", map[string]any{"ref": string(c.Hash)}, &sh)
	if sh.Content == nil || sh.Content.Text != "a risky idea" || sh.Tract != "main" {
		t.Fatalf("show = %+v", sh)
	}
	var picked tract.Commit
	call(t, cs, "tract_cherry_pick", map[string]any{"ref": string(c.Hash)}, &picked)
	if picked.Content != c.Content || picked.Parents[0] != h.Head {
		t.Fatalf("cherry-pick = %+v", picked)
	}
	h = HeadOutput{}
	call(t, cs, "tract_checkout", map[string]any{"ref": "HEAD~1"}, &h)
	if h.Branch != "" {
		t.Fatalf("checkout = %+v", h)
	}
	call(t, cs, "tract_checkout", map[string]any{"ref": "-"}, &h)
	if h.Branch != "main" || h.Head != picked.Hash {
		t.Fatalf("checkout - = %+v", h)
	}
	var lg LogOutput
	call(t, cs, "tract_log", map[string]any{"role": "assistant"}, &lg)
	if len(lg.Entries) != 1 || lg.Entries[0].Hash != picked.Hash {
		t.Fatalf("log role assistant = %+v", lg.Entries)
	}

	var ex ExportOutput
	call(t, cs, "tract_export", nil, &ex)
	if ex.Commits != 2 || !strings.HasPrefix(ex.Export, `{"kind":"lineage-export","version":1}`) {
		t.Fatalf("export = %+v", ex)
	}
	if err := os.MkdirAll(filepath.Join(cwd, "saved"), 0o755); err != nil {
		t.Fatal(err)
	}
	ex = ExportOutput{}
	call(t, cs, "tract_export", map[string]any{"path": "saved/main.jsonl"}, &ex)
	data, err := os.ReadFile(filepath.Join(cwd, "saved", "main.jsonl"))
	if err != nil || ex.Path != filepath.Join(cwd, "saved", "main.jsonl") || ex.Export != "" || !strings.Contains(string(data), `"kind":"commit"`) {
		t.Fatalf("export to a file = %+v, %v", ex, err)
	}
	outside := filepath.Join(t.TempDir(), "leak.jsonl")
	if msg := callError(t, cs, "tract_export", map[string]any{"path": outside}); !strings.Contains(msg, "outside") {
		t.Fatalf("export outside the roots: %s", msg)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("export written outside the roots")
	}
}

// TestTractGuideInInstructions: a server with a tract store tells the agent
// how to checkpoint, rewind and compress with the tools it lists.
func TestTractGuideInInstructions(t *testing.T) {
	path, _ := newStore(t)
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)
	guide := cs.InitializeResult().Instructions
	tools, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"tract_tag", "tract_reset", "tract_checkout", "tract_switch", "tract_cherry_pick", "tract_compress", "tract_merge_from", "tract_export", "warn"} {
		if !strings.Contains(guide, want) {
			t.Fatalf("instructions lack %q:\n%s", want, guide)
		}
		if strings.HasPrefix(want, "tract_") && !slices.Contains(names, want) {
			t.Fatalf("the guide names %s, which the server does not list", want)
		}
	}
}
