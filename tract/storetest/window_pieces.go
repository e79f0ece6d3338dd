package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{{"CheckpointPieces", testCheckpointPieces}, {"WindowReadsItsPieces", testWindowReadsItsPieces}})
}

// pieceReads counts what a compile reads of a stored checkpoint: the
// pieces and their bytes, and the reads of the messages part whole.
type pieceReads struct {
	tract.Store
	pieces, bytes, whole int
}

func (s *pieceReads) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	if part == tract.ViewMessages {
		s.whole++
	}
	return s.Store.CompiledView(ctx, viewer, encoding, part)
}

func (s *pieceReads) CompiledViewPieces(ctx context.Context, viewer, encoding string, sum tract.Hash, from, to int, fn func(int, []byte) error) error {
	return s.Store.CompiledViewPieces(ctx, viewer, encoding, sum, from, to, func(piece int, data []byte) error {
		s.pieces++
		s.bytes += len(data)
		return fn(piece, data)
	})
}

// testCheckpointPieces: a checkpoint's messages are stored in the pieces
// put, read back one range at a time (ErrNotFound for another sum, none
// for a range past the last), whole as their concatenation; a piece put
// again with one byte flipped is damage to what reads it (a window over
// it, a cold compile, verify) and not to a window over other pieces; gc
// removes the checkpoint with its pieces.
func testCheckpointPieces(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.importNumbered(60)
	r := tract.New(e.store, tract.Options{Now: e.clock.Now, CheckpointPiece: 7})
	want, err := r.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	main, err := r.Tract(e.ctx, "main")
	e.must(err)
	cv, err := storedView(e.ctx, e.store, main.ID)
	e.must(err)
	if len(cv.Pieces) != 1+(60+6)/7 {
		t.Fatalf("%d pieces stored, want a header and %d of 7 messages", len(cv.Pieces), (60+6)/7)
	}
	var got []int
	e.must(e.store.CompiledViewPieces(e.ctx, main.ID, "o200k_base", cv.Sum, 3, 5, func(piece int, data []byte) error {
		got = append(got, piece)
		if !bytes.Equal(data, cv.Pieces[piece]) {
			return fmt.Errorf("piece %d read as %d bytes, put as %d", piece, len(data), len(cv.Pieces[piece]))
		}
		return nil
	}))
	if !slices.Equal(got, []int{3, 4}) {
		t.Fatalf("pieces 3 to 4 read as %v", got)
	}
	for _, c := range []struct {
		sum      tract.Hash
		from, to int
	}{{"00" + cv.Sum[2:], 0, 1}, {cv.Sum, 100, 101}} {
		err := e.store.CompiledViewPieces(e.ctx, main.ID, "o200k_base", c.sum, c.from, c.to, func(int, []byte) error { return errors.New("called") })
		if !errors.Is(err, tract.ErrNotFound) {
			t.Fatalf("pieces %d to %d of sum %s: %v, want ErrNotFound", c.from, c.to-1, c.sum.Short(), err)
		}
	}
	// One byte flipped in piece 2 (messages 7 to 13).
	bad := cv
	bad.Pieces = slices.Clone(cv.Pieces)
	bad.Pieces[2] = bytes.Clone(cv.Pieces[2])
	bad.Pieces[2][len(bad.Pieces[2])/2] ^= 1
	e.must(e.store.Update(e.ctx, func(tx tract.Tx) error { return tx.PutCompiledView(e.ctx, bad) }))
	fresh := tract.New(e.store, tract.Options{})
	if _, err := fresh.CompileWindow(e.ctx, "main", tract.CompileOptions{}, tract.WindowOptions{From: 10, N: 2}); !errors.Is(err, tract.ErrDamaged) {
		t.Fatalf("window over a damaged piece: %v, want ErrDamaged", err)
	}
	w, err := fresh.CompileWindow(e.ctx, "main", tract.CompileOptions{}, tract.WindowOptions{From: -1, N: 5})
	if err != nil || w.Count != 60 || !reflect.DeepEqual(w.Messages, want.Messages[55:]) {
		t.Fatalf("window beside a damaged piece: %d of %d messages, %v", len(w.Messages), w.Count, err)
	}
	if _, err := fresh.CompileCold(e.ctx, "main", tract.CompileOptions{}); !errors.Is(err, tract.ErrDamaged) {
		t.Fatalf("cold compile with a damaged piece: %v, want ErrDamaged", err)
	}
	collectDamagedCheckpoint(e, fresh, main.ID, want)
}

// testWindowReadsItsPieces: a compile window the stored checkpoint serves
// reads the header piece and the pieces holding what it shows, never the
// messages whole, and returns what the window of a whole compile holds.
func testWindowReadsItsPieces(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	const n, per = 400, 10
	e.importNumbered(n)
	want, err := tract.New(e.store, tract.Options{Now: e.clock.Now, CheckpointPiece: per}).CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	main, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	cv, err := storedView(e.ctx, e.store, main.ID)
	e.must(err)
	for _, c := range []struct{ from, n, pieces int }{
		{-1, 20, 3},  // the newest 20: pieces 39 and 40
		{0, 10, 2},   // the first piece
		{195, 10, 3}, // across pieces 20 and 21
		{-1, 0, 1},   // the header alone
	} {
		reads := &pieceReads{Store: e.store}
		got, err := tract.New(reads, tract.Options{}).CompileWindow(e.ctx, "main", tract.CompileOptions{}, tract.WindowOptions{From: c.from, N: c.n})
		e.must(err)
		from := c.from
		if from < 0 {
			from = n - c.n
		}
		if got.Count != n || got.Tokens != want.Tokens || !reflect.DeepEqual(got.Messages, want.Messages[from:from+c.n]) && c.n > 0 {
			t.Fatalf("window %d from %d: %d of %d messages, %d tokens; want %d tokens", c.n, c.from, len(got.Messages), got.Count, got.Tokens, want.Tokens)
		}
		size := len(cv.Pieces[0]) + c.pieces*len(cv.Pieces[1])*3/2
		if reads.pieces != c.pieces || reads.whole != 0 || reads.bytes > size {
			t.Fatalf("window %d from %d read %d pieces (%d bytes) and the messages whole %d times; want %d pieces (at most %d bytes), never whole",
				c.n, c.from, reads.pieces, reads.bytes, reads.whole, c.pieces, size)
		}
	}
	// A budget chooses over every message: every piece is read once.
	reads := &pieceReads{Store: e.store}
	_, err = tract.New(reads, tract.Options{}).CompileWindow(e.ctx, "main", tract.CompileOptions{Budget: want.Tokens / 2}, tract.WindowOptions{From: -1, N: 5})
	e.must(err)
	if reads.pieces != len(cv.Pieces)+1 || reads.whole != 0 {
		t.Fatalf("budgeted window read %d pieces and the messages whole %d times; want the %d pieces and the window's again, never whole",
			reads.pieces, reads.whole, len(cv.Pieces))
	}
}
