package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/wire"
)

// lendStore is a store whose tract main has n messages of about 500 bytes
// compiled once (its checkpoint stored), and main's id.
func lendStore(t *testing.T, n int) (*sqlite.Store, string) {
	t.Helper()
	ctx := context.Background()
	s, r := createRepo(t, filepath.Join(t.TempDir(), "lineage.db"))
	t.Cleanup(func() { s.Close() })
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i, " ", strings.Repeat("lorem ipsum ", 40))}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
		t.Fatal(err)
	}
	main, err := r.Tract(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	return s, main.ID
}

// TestLendCompiledView: a lent checkpoint is the one CompiledView reads,
// its messages part gathered from its pieces in a buffer kept from one
// lending to the next (not allocated again); a missing one is
// ErrNotFound without a call; fn's error comes back as it is.
func TestLendCompiledView(t *testing.T) {
	ctx := context.Background()
	s, id := lendStore(t, 2000)
	want, err := s.CompiledView(ctx, id, "o200k_base", tract.ViewMessages)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Messages) < 1<<20 {
		t.Fatalf("messages part of %d bytes: the test wants a megabyte", len(want.Messages))
	}
	check := func(cv tract.CompiledView) error {
		got := cv
		got.Messages = nil
		exp := want
		exp.Messages = nil
		if fmt.Sprint(got) != fmt.Sprint(exp) || !bytes.Equal(cv.Messages, want.Messages) {
			return fmt.Errorf("lent %+v (%d bytes of messages), want %+v (%d)", got, len(cv.Messages), exp, len(want.Messages))
		}
		return nil
	}
	calls := 0
	if err := s.LendCompiledView(ctx, id, "o200k_base", func(cv tract.CompiledView) error { calls++; return check(cv) }); err != nil || calls != 1 {
		t.Fatalf("lend: %v after %d calls, want 1", err, calls)
	}

	// The buffer kept: the lend allocates a small part of what it lends.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = s.LendCompiledView(ctx, id, "o200k_base", func(cv tract.CompiledView) error {
		if len(cv.Messages) != len(want.Messages) {
			return errors.New("another part")
		}
		return nil
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(want.Messages))/8 {
		t.Fatalf("lending %d bytes allocated %d in Go's heap: a new buffer", len(want.Messages), got)
	}

	err = s.LendCompiledView(ctx, "no-such-tract", "o200k_base", func(tract.CompiledView) error { calls++; return nil })
	if !errors.Is(err, tract.ErrNotFound) || calls != 1 {
		t.Fatalf("lend of a missing checkpoint: %v after %d more calls, want ErrNotFound and none", err, calls-1)
	}

	// fn's own error as it is, even when its text reads like SQLite's.
	refused := errors.New("database disk image is malformed, says fn")
	err = s.LendCompiledView(ctx, id, "o200k_base", func(tract.CompiledView) error { return refused })
	if err != refused {
		t.Fatalf("lend whose fn failed: %v, want fn's error as it is", err)
	}

	// The store works on after a refusal, and a transaction lends too.
	err = s.Update(ctx, func(tx tract.Tx) error {
		l, ok := tx.(tract.ViewLender)
		if !ok {
			return fmt.Errorf("%T lends nothing", tx)
		}
		return l.LendCompiledView(ctx, id, "o200k_base", check)
	})
	if err != nil {
		t.Fatalf("lend in a transaction: %v", err)
	}
}

// TestLendConcurrently: lends in flight at once each see their own row.
func TestLendConcurrently(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, r := createRepo(t, p)
	defer s.Close()
	ids := make([]string, 4)
	parts := make([][]byte, len(ids))
	for i := range ids {
		name := fmt.Sprint("t", i)
		if _, err := r.NewTract(ctx, name); err != nil {
			t.Fatal(err)
		}
		for j := range 3 + i {
			if _, err := r.Commit(ctx, name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint(name, " message ", j)}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.CompileCold(ctx, name, tract.CompileOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := r.Tract(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		cv, err := s.CompiledView(ctx, tr.ID, "o200k_base", tract.ViewMessages)
		if err != nil {
			t.Fatal(err)
		}
		ids[i], parts[i] = tr.ID, cv.Messages
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 50 {
				i := (g + k) % len(ids)
				err := s.LendCompiledView(ctx, ids[i], "o200k_base", func(cv tract.CompiledView) error {
					if cv.Viewer != ids[i] || !bytes.Equal(cv.Messages, parts[i]) {
						return fmt.Errorf("lend of %s saw %s's row", ids[i], cv.Viewer)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestCheckpointColumnTypes: a checkpoint row whose columns hold values of
// another type (a file edited by hand, or by something else than lineage)
// is damage: compile and status say so (tract.ErrDamaged), and the openai
// compile writes nothing.
func TestCheckpointColumnTypes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, set string }{
		{"a piece a number", `UPDATE compiled_view_pieces SET data = 42 WHERE piece = 1`},
		{"sum text", `UPDATE compiled_views SET sum = 'abc'`},
		{"tokens text", `UPDATE compiled_views SET tokens = 'many'`},
		{"head a number", `UPDATE compiled_views SET head = 7`},
		{"index a number", `UPDATE compiled_views SET piece_index = 42`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "lineage.db")
			s, r := createRepo(t, p)
			for i := range 3 {
				if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i)}}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			execRaw(t, p, `PRAGMA ignore_check_constraints = 1; `+tc.set)
			s, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r = tract.New(s, tract.Options{})
			var out bytes.Buffer
			if err := r.CompileMessages(ctx, "main", tract.CompileOptions{}, func(ms *tract.Messages) error { return wire.WriteOpenAIMessages(&out, ms, "  ") }); !errors.Is(err, tract.ErrDamaged) || out.Len() > 0 {
				t.Errorf("openai compile: %v, %d bytes written; want ErrDamaged and none", err, out.Len())
			}
			if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); !errors.Is(err, tract.ErrDamaged) {
				t.Errorf("compile: %v, want ErrDamaged", err)
			}
			if _, err := r.Status(ctx, "main"); tc.name != "a piece a number" && !errors.Is(err, tract.ErrDamaged) {
				t.Errorf("status: %v, want ErrDamaged", err)
			}
		})
	}
}
