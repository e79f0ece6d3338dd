package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// dataReads counts the reads of a stored checkpoint's data part.
type dataReads struct {
	tract.Store
	n int
}

func (d *dataReads) CompiledView(ctx context.Context, tractID, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	if part == tract.ViewData {
		d.n++
	}
	return d.Store.CompiledView(ctx, tractID, encoding, part)
}

// TestCompileBehindTheCheckpointSkipsIt: a compile at an ancestor of the
// stored checkpoint's head (compile --at HEAD~N, the older side of a
// diff) never reads the checkpoint's data, which could not serve it, and
// gives what a compile from the history alone gives.
func TestCompileBehindTheCheckpointSkipsIt(t *testing.T) {
	ctx := context.Background()
	s, _ := lendStore(t, 60)
	d := &dataReads{Store: s}
	r := tract.New(d, tract.Options{})
	cold := tract.New(s, tract.Options{NoCheckpoints: true})
	for _, at := range []string{"HEAD~1", "HEAD~59"} {
		d.n = 0
		got, err := r.CompileCold(ctx, "main", tract.CompileOptions{At: at})
		if err != nil {
			t.Fatal(err)
		}
		if d.n != 0 {
			t.Errorf("--at %s read the checkpoint's data %d times", at, d.n)
		}
		want, err := cold.CompileCold(ctx, "main", tract.CompileOptions{At: at})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Messages, want.Messages) || got.Tokens != want.Tokens {
			t.Errorf("--at %s: %d messages, %d tokens; from the history %d, %d", at, len(got.Messages), got.Tokens, len(want.Messages), want.Tokens)
		}
	}
}
