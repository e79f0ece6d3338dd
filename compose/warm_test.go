package compose_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
)

// countingStore counts the rows a compile reads: commits, blobs, history
// and compiled views.
type countingStore struct {
	tract.Store
	commits, blobs, history, views atomic.Int64
}

func (s *countingStore) Commit(ctx context.Context, h tract.Hash) (tract.Commit, error) {
	s.commits.Add(1)
	return s.Store.Commit(ctx, h)
}

func (s *countingStore) Blobs(ctx context.Context, hashes []tract.Hash, encoding string) ([]tract.Blob, error) {
	s.blobs.Add(int64(len(hashes)))
	return s.Store.Blobs(ctx, hashes, encoding)
}

func (s *countingStore) History(ctx context.Context, heads []tract.Hash, encoding string) ([]tract.HistoryCommit, error) {
	h, err := s.Store.History(ctx, heads, encoding)
	s.history.Add(int64(len(h)))
	return h, err
}

func (s *countingStore) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	s.views.Add(1)
	return s.Store.CompiledView(ctx, viewer, encoding, part)
}

// After one appended commit, a warm compile of a 10k-message tract under a
// budget reads the new commit and its blob, no history and no checkpoint,
// and gives what a cold compile gives (the budget's own work is bounded
// by tract's TestBudgetStateWork).
func TestWarmCompileReadsOnlyTheAppend(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var cs *countingStore
	repo := newRepo(t, dir, func(st tract.Store) tract.Store { cs = &countingStore{Store: st}; return cs })
	reqs := []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are a careful engineer."}}}
	for i := 0; i < 9_999; i++ {
		reqs = append(reqs, benchMessage(i))
	}
	if _, err := repo.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	o := compose.Options{Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
		Repo: repo, Tract: "main", Budget: 4000, Format: compose.FormatOpenAIRequest, Scratch: &compose.Scratch{}}
	if _, err := compose.Compile(ctx, o); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := repo.Commit(ctx, "main", benchMessage(10_000+i)); err != nil {
			t.Fatal(err)
		}
		cs.commits.Store(0)
		cs.blobs.Store(0)
		cs.history.Store(0)
		cs.views.Store(0)
		res, err := compose.Compile(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if c, b, h, v := cs.commits.Load(), cs.blobs.Load(), cs.history.Load(), cs.views.Load(); c > 1 || b > 1 || h != 0 || v != 0 {
			t.Fatalf("append %d: read %d commits, %d blobs, %d history rows, %d checkpoints", i, c, b, h, v)
		}
		// The warm compile, built in the scratch of the one before, is
		// the cold one (without a scratch) byte for byte.
		got, err := json.Marshal(res, json.Deterministic(true))
		if err != nil {
			t.Fatal(err)
		}
		cold := o
		cold.Cold, cold.Scratch = true, nil
		want, err := compose.Compile(ctx, cold)
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := json.Marshal(want, json.Deterministic(true)); string(got) != string(w) {
			t.Fatalf("append %d: the warm compile differs from the cold one:\n%.2000s\n%.2000s", i, got, w)
		}
		if len(res.Messages) != len(want.Messages) || res.DroppedMessageCount != want.DroppedMessageCount ||
			res.DroppedMessageTokens != want.DroppedMessageTokens || res.Tokens != want.Tokens || res.Messages[len(res.Messages)-1].Commit != want.Messages[len(want.Messages)-1].Commit {
			t.Fatalf("append %d: warm %d messages, %d dropped (%d tokens), %d tokens; cold %d, %d (%d), %d", i,
				len(res.Messages), res.DroppedMessageCount, res.DroppedMessageTokens, res.Tokens,
				len(want.Messages), want.DroppedMessageCount, want.DroppedMessageTokens, want.Tokens)
		}
	}
}
