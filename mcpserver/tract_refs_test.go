package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

func TestTractRefToolsMirrorTheCLI(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	base, _ := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: "base"}})
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var br BranchOutput
	call(t, cs, "tract_branch", map[string]any{"name": "idea"}, &br)
	if br.Created == nil || br.Created.Name != "idea" || br.Created.Commit != base.Hash {
		t.Fatalf("create = %+v", br)
	}
	var sw SwitchOutput
	call(t, cs, "tract_switch", map[string]any{"name": "idea"}, &sw)
	if sw.Branch != "idea" || sw.Head != base.Hash {
		t.Fatalf("switch = %+v", sw)
	}
	var c tract.Commit
	call(t, cs, "tract_commit", map[string]any{"type": "message", "role": "assistant", "text": "an idea"}, &c)
	call(t, cs, "tract_switch", map[string]any{"name": "main"}, &sw)
	var m tract.MergeResult
	call(t, cs, "tract_merge", map[string]any{"branch": "idea"}, &m)
	if m.Kind != tract.MergeFastForward || m.Head != c.Hash {
		t.Fatalf("merge = %+v", m)
	}
	call(t, cs, "tract_branch", nil, &br)
	if len(br.Branches) != 2 || br.Branches[0].Name != "idea" || !br.Branches[1].Current {
		t.Fatalf("branches = %+v", br)
	}
	call(t, cs, "tract_branch", map[string]any{"delete": "idea"}, &br)
	if br.Deleted != "idea" {
		t.Fatalf("delete = %+v", br)
	}

	var a tract.Annotation
	call(t, cs, "tract_annotate", map[string]any{"ref": base.Hash.Short(), "priority": "skip", "reason": "noise"}, &a)
	if a.Priority != tract.Skip || a.Commit != base.Hash || a.Reason != "noise" {
		t.Fatalf("annotate = %+v", a)
	}
	var e tract.Commit
	call(t, cs, "tract_edit", map[string]any{"ref": "HEAD", "text": "a better idea"}, &e)
	if e.Operation != tract.OpEdit || e.EditTarget != c.Hash {
		t.Fatalf("edit = %+v", e)
	}
	var out CompileOutput
	call(t, cs, "tract_compile", nil, &out)
	if len(out.Messages) != 1 || out.Messages[0].Content != "a better idea" {
		t.Fatalf("compile after skip and edit = %+v", out.Messages)
	}

	var child tract.Tract
	call(t, cs, "tract_spawn", map[string]any{"child": "helper", "purpose": "look things up"}, &child)
	if child.Name != "helper" || child.Spawn == nil || child.Spawn.Mode != tract.SpawnReference {
		t.Fatalf("spawn = %+v", child)
	}
	call(t, cs, "tract_commit", map[string]any{"tract": "helper", "type": "message", "role": "assistant", "text": "found it"}, &c)
	var mf tract.MergeFromResult
	call(t, cs, "tract_merge_from", map[string]any{"child": "helper"}, &mf)
	if mf.Kind != "merge" || mf.Parent != "main" || mf.Child != "helper" {
		t.Fatalf("merge-from = %+v", mf)
	}
	out = CompileOutput{}
	call(t, cs, "tract_compile", nil, &out)
	var texts []string
	for _, m := range out.Messages {
		texts = append(texts, m.Content)
	}
	if !slices.Equal(texts, []string{"a better idea", "found it"}) {
		t.Fatalf("parent compile after merge-from = %v", texts)
	}

	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"tract_annotate", map[string]any{"ref": "HEAD", "priority": "urgent"}, "priority"},
		{"tract_switch", map[string]any{"name": "nope"}, "not found"},
		{"tract_merge", map[string]any{"branch": "main", "strategy": "mine"}, "strategy"},
		{"tract_commit", map[string]any{"type": "gossip", "text": "x"}, "type"},
		{"tract_commit", map[string]any{"type": "message", "text": "x", "priority": "important"}, "priority"},
		{"tract_spawn", map[string]any{"child": "x", "purpose": "p", "mode": "clone"}, "mode"},
		{"tract_branch", map[string]any{"name": "a", "delete": "b"}, "not both"},
		{"tract_log", map[string]any{"tract": "ghost"}, "not found"},
	} {
		if msg := callError(t, cs, bad.tool, bad.args); !strings.Contains(msg, bad.want) {
			t.Errorf("%s %v: %q, want it to mention %q", bad.tool, bad.args, msg, bad.want)
		}
	}
}
