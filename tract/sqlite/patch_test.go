package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// historyReads counts what a compile reads beyond the stored checkpoint's
// header and messages: the checkpoint's data part (the view a full
// compile starts from) and single commits.
type historyReads struct {
	tract.Store
	data, commits int
}

func (h *historyReads) CompiledView(ctx context.Context, tractID, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	if part == tract.ViewData {
		h.data++
	}
	return h.Store.CompiledView(ctx, tractID, encoding, part)
}

func (h *historyReads) Commit(ctx context.Context, hash tract.Hash) (tract.Commit, error) {
	h.commits++
	return h.Store.Commit(ctx, hash)
}

// patchStore is 40 commits on main: messages (the 3rd pinned, the 5th
// skipped), a named instruction (the 8th), a tool call and its result
// (the 12th and 13th); compiled once, so the checkpoint is at HEAD.
func patchStore(t *testing.T) (*tract.Repo, *historyReads, *tract.Repo) {
	t.Helper()
	ctx := context.Background()
	s, r := createRepo(t, filepath.Join(t.TempDir(), "lineage.db"))
	t.Cleanup(func() { s.Close() })
	reqs := make([]tract.CommitRequest, 40)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: []string{"user", "assistant"}[i%2], Text: fmt.Sprint("message ", i)}}
	}
	reqs[2].Priority, reqs[4].Priority = tract.Pinned, tract.Skip
	reqs[7].Content = tract.Content{Type: tract.TypeInstruction, Name: "style", Text: "be brief"}
	reqs[1].Content = tract.Content{Type: tract.TypeInstruction, Name: "style", Text: "be long"}
	reqs[11].Content = tract.Content{Type: tract.TypeToolCall, Role: "assistant", ToolCalls: []tract.ToolCall{{ID: "c1", Name: "ls", Arguments: "{}"}}}
	reqs[12].Content = tract.Content{Type: tract.TypeToolResult, Role: "tool", ToolCallID: "c1", Text: "a b c"}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
		t.Fatal(err)
	}
	h := &historyReads{Store: s}
	return tract.New(h, tract.Options{}), h, tract.New(s, tract.Options{NoCheckpoints: true})
}

// TestAnnotationAfterTheCheckpointIsPatched: annotations made after the
// stored checkpoint that change the priority of messages it holds are
// applied to its messages (no view, no history read: the data part is
// never read and at most a few commits are), and every kind of compile
// gives what a compile from the history gives; those a patch cannot make
// exactly (a skipped commit brought back, a named instruction whose skip
// brings back an earlier one, a pinned message un-pinned) go through the
// full compile, with the same result.
func TestAnnotationAfterTheCheckpointIsPatched(t *testing.T) {
	type ann struct {
		ref string
		p   tract.Priority
	}
	for _, tc := range []struct {
		name    string
		anns    []ann
		patched bool
	}{
		{"pin", []ann{{"HEAD~30", tract.Pinned}}, true},
		{"skip", []ann{{"HEAD~20", tract.Skip}}, true},
		{"important and skip", []ann{{"HEAD~10", tract.Important}, {"HEAD~9", tract.Skip}}, true},
		{"skip the last", []ann{{"HEAD", tract.Skip}}, true},
		{"skip the first", []ann{{"HEAD~39", tract.Skip}}, true},
		{"skip then keep", []ann{{"HEAD~6", tract.Skip}, {"HEAD~6", tract.Normal}}, true},
		{"skip the tool call", []ann{{"HEAD~28", tract.Skip}}, true},
		{"bring back a skipped one", []ann{{"HEAD~35", tract.Normal}}, false},
		{"skip a named instruction", []ann{{"HEAD~32", tract.Skip}}, false},
		{"un-pin", []ann{{"HEAD~37", tract.Normal}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r, h, cold := patchStore(t)
			for _, a := range tc.anns {
				if _, err := r.Annotate(ctx, "main", a.ref, a.p, "test"); err != nil {
					t.Fatal(err)
				}
			}
			h.data, h.commits = 0, 0
			for _, budget := range []int{0, 150} {
				got, err := r.CompileCold(ctx, "main", tract.CompileOptions{Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				want, err := cold.CompileCold(ctx, "main", tract.CompileOptions{Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				got.Budget, want.Budget = nil, nil
				if !reflect.DeepEqual(got, want) {
					t.Errorf("budget %d: compile\n%+v\nfrom the history\n%+v", budget, got, want)
				}
				w, err := r.CompileWindow(ctx, "main", tract.CompileOptions{Budget: budget}, tract.WindowOptions{From: -1, N: 7, Dropped: 3})
				if err != nil {
					t.Fatal(err)
				}
				n := len(want.Messages)
				if w.Count != n || w.Tokens != want.Tokens || !reflect.DeepEqual(w.Messages, want.Messages[n-7:]) || w.DroppedCount != len(want.Dropped) {
					t.Errorf("budget %d: window of %d, %d tokens, %d dropped: %+v; want %d, %d, %d: %+v", budget, w.Count, w.Tokens, w.DroppedCount, w.Messages, n, want.Tokens, len(want.Dropped), want.Messages[n-7:])
				}
			}
			var all []tract.Message
			if err := r.CompileMessages(ctx, "main", tract.CompileOptions{}, func(ms *tract.Messages) error {
				all = ms.All()
				return ms.Err()
			}); err != nil {
				t.Fatal(err)
			}
			want, _ := cold.CompileCold(ctx, "main", tract.CompileOptions{})
			if len(all) != len(want.Messages) {
				t.Fatalf("CompileMessages handed out %d messages, want %d", len(all), len(want.Messages))
			}
			for i := range all {
				if all[i].Content != want.Messages[i].Content || all[i].Priority != want.Messages[i].Priority {
					t.Errorf("CompileMessages message %d: %q %s, want %q %s", i, all[i].Content, all[i].Priority, want.Messages[i].Content, want.Messages[i].Priority)
				}
			}
			if patched := h.data == 0; patched != tc.patched {
				t.Errorf("checkpoint's data read %d times (patched: %v), want patched %v", h.data, patched, tc.patched)
			}
			if tc.patched && h.commits > 20 {
				t.Errorf("patched compiles read %d commits", h.commits)
			}
		})
	}
}
