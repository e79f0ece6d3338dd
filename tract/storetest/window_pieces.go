package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
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
// reads the header piece and the pieces holding what it shows (with those
// that follow, up to 16 KB with the header and 64 KB with them), never the
// messages whole, and returns
// what the window of a whole compile holds.
func testWindowReadsItsPieces(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	const n, per = 600, 10
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d %s", i, strings.Repeat("lorem ipsum ", 90))}}
	}
	_, err := e.repo.Import(e.ctx, "main", reqs)
	e.must(err)
	want, err := tract.New(e.store, tract.Options{Now: e.clock.Now, CheckpointPiece: per}).CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	main, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	cv, err := storedView(e.ctx, e.store, main.ID)
	e.must(err)
	if len(cv.Pieces) != 1+n/per || len(cv.Messages) < 600_000 {
		t.Fatalf("%d pieces, %d bytes of messages; want %d, over 600 KB", len(cv.Pieces), len(cv.Messages), 1+n/per)
	}
	for _, c := range []struct{ from, n, first, last int }{
		{-1, 20, 59, 60}, // the newest 20: the last two pieces
		{0, 10, 1, 1},    // the first piece
		{295, 10, 30, 31},
		{-1, 0, 0, 0}, // the header alone
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
		// The header, the pieces shown and at most 16 KB read ahead with
		// the header, 64 KB with them.
		size := len(cv.Pieces[0]) + 80<<10
		for k := c.first; k <= c.last && k > 0; k++ {
			size += len(cv.Pieces[k])
		}
		if reads.whole != 0 || reads.bytes > size || reads.bytes > len(cv.Messages)/5 {
			t.Fatalf("window %d from %d read %d pieces (%d bytes) and the messages whole %d times; want at most %d bytes of %d, never whole",
				c.n, c.from, reads.pieces, reads.bytes, reads.whole, size, len(cv.Messages))
		}
	}
	// A budget to meet chooses over every message: the messages are read
	// whole, once (its two passes read that one copy).
	reads := &pieceReads{Store: e.store}
	_, err = tract.New(reads, tract.Options{}).CompileWindow(e.ctx, "main", tract.CompileOptions{Budget: want.Tokens / 2}, tract.WindowOptions{From: -1, N: 5})
	e.must(err)
	if reads.whole != 1 || reads.pieces != 0 {
		t.Fatalf("budgeted window read the messages whole %d times and %d pieces; want once, no piece", reads.whole, reads.pieces)
	}
	// So does a window whose Head reads them all; one whose Head stops
	// reads the pieces it takes.
	for _, all := range []bool{true, false} {
		reads := &pieceReads{Store: e.store}
		var head []string
		_, err = tract.New(reads, tract.Options{}).CompileWindow(e.ctx, "main", tract.CompileOptions{}, tract.WindowOptions{From: -1, N: 5,
			HeadReadsAll: all, Head: func(m *tract.Message) bool { head = append(head, m.Content); return len(head) < 3 }})
		e.must(err)
		if !slices.Equal(head, messageTexts(tract.Result{Messages: want.Messages[:3]})) || all != (reads.whole == 1) || all == (reads.pieces > 0) {
			t.Fatalf("window with a head (reads all: %v) read the messages whole %d times and %d pieces; head %d messages", all, reads.whole, reads.pieces, len(head))
		}
	}
}
