package tract

import (
	"context"
	"errors"
	"unsafe"
)

// A compile window the stored checkpoint serves as it is (no annotation
// to patch in, no messages to cut: planStored) is read from the
// checkpoint's pieces (checkpoint_pieces.go): the header's index, piece 0
// (the tools and author tracts) and the pieces holding a message the window
// keeps, lists or hands to WindowOptions.Head, each checked against its
// sum as it is read. A budget's or prune's choice reads every piece once
// more, a piece at a time. Memory is a piece and the window, not the
// messages part whole.

// pieceSource reads a stored checkpoint's messages a piece at a time.
type pieceSource struct {
	ctx    context.Context
	store  Reader
	t      Tract
	cv     CompiledView
	pieces []pieceInfo
	// authors are the author tracts of piece 0's header.
	authors [][2]string
	// err is what stopped a read: a store error, damage, or errReplaced.
	err error
	// ahead are pieces read ahead, from aheadFrom on: a read takes the
	// pieces that follow up to pieceBytes in all (small pieces in one
	// query), twice as many bytes for each read that goes on from the
	// one before (run of them, up to maxRun, last the last piece read),
	// so a pass over every piece takes a few queries and a window one or
	// two.
	ahead     [][]byte
	aheadFrom int
	run, last int
	// free are pieces done with, their memory for the next read (only
	// in a window's pass: nothing it keeps shares a piece's memory).
	free [][]byte
}

// spare is memory for a piece of n bytes, of a piece done with when
// there is one.
func (ps *pieceSource) spare(n int) []byte {
	for j, b := range ps.free {
		if cap(b) >= n {
			ps.free = append(ps.free[:j], ps.free[j+1:]...)
			return b[:0]
		}
	}
	return make([]byte, 0, n)
}

// maxRun bounds the doublings of a read's bytes; headerAhead is what the
// read of the header reads with it.
const (
	maxRun      = 4
	headerAhead = 16 << 10
)

// maxFree bounds the pieces kept for their memory: a read's worth at the
// longest run.
const maxFree = 1 << maxRun

// pieceWindow is windowSource over sc's pieces; ok is false when the
// checkpoint does not serve the window that way (replaced meanwhile, or a
// layout this build reads differently).
func (r *Repo) pieceWindow(ctx context.Context, t Tract, sc storedCompile) (*pieceSource, windowSource, bool, error) {
	pieces, err := decodeIndex(sc.cv.Index)
	if err != nil {
		return nil, windowSource{}, false, nil
	}
	ps := &pieceSource{ctx: ctx, store: r.store, t: t, cv: sc.cv, pieces: pieces}
	header, err := ps.piece(0)
	if err != nil {
		return nil, windowSource{}, false, ps.fail(err)
	}
	mr, sm, err := openHeader(header, t, sc.cv.Head, false)
	rows := 0
	for _, p := range pieces {
		rows += p.rows
	}
	if err != nil || mr.r.s != "" || mr.left != rows {
		return nil, windowSource{}, false, nil
	}
	ps.authors = mr.authors
	src := windowSource{n: rows + len(sc.more), tokens: sm.tokens + tokensPrimer, tools: sm.tools}
	for _, m := range sc.more {
		src.tokens += m.Tokens
	}
	src.seekEach = func(seek func(int) int, want func(int) bool, arena func(int) *hexArena, visit func(int, *Message) bool) bool {
		return ps.each(sc.more, sm.slots, seek, want, arena, visit)
	}
	src.each = func(want func(int) bool, arena func(int) *hexArena, visit func(int, *Message) bool) bool {
		return ps.each(sc.more, sm.slots, nil, want, arena, visit)
	}
	return ps, src, true, nil
}

// fail is the error a window returns for err met reading a piece: none
// for a checkpoint replaced meanwhile (the window is then not served).
func (ps *pieceSource) fail(err error) error {
	if errors.Is(err, errReplaced) {
		return nil
	}
	return err
}

// piece reads piece i, checked against its sum: a copy of its own.
func (ps *pieceSource) piece(i int) ([]byte, error) {
	if j := i - ps.aheadFrom; j >= 0 && j < len(ps.ahead) && ps.ahead[j] != nil {
		return ps.checked(i, j)
	}
	if i > 0 && i == ps.last+1 {
		ps.run = min(ps.run+1, maxRun)
	} else {
		ps.run = 0
	}
	limit := pieceBytes << ps.run
	if i == 0 {
		limit = headerAhead // the header, and a small checkpoint whole
	}
	n, size := 1, ps.pieces[i].size
	for i+n < len(ps.pieces) && size+ps.pieces[i+n].size <= limit {
		size += ps.pieces[i+n].size
		n++
	}
	ps.ahead, ps.aheadFrom, ps.last = make([][]byte, n), i, i+n-1
	err := ps.store.CompiledViewPieces(ps.ctx, ps.cv.Viewer, ps.cv.Encoding, ps.cv.Sum, i, i+n, func(k int, b []byte) error {
		if k >= i && k < i+n {
			ps.ahead[k-i] = append(ps.spare(len(b)), b...)
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return nil, errReplaced
	}
	if err != nil {
		return nil, err
	}
	return ps.checked(i, 0)
}

// checked hands out piece i, read ahead as ps.ahead[j], checked against
// its sum (a piece missing is damage too: its checkpoint is stored).
func (ps *pieceSource) checked(i, j int) ([]byte, error) {
	data := ps.ahead[j]
	ps.ahead[j] = nil
	if p := ps.pieces[i]; data == nil || len(data) != p.size || !hashes(p.sum, data) {
		return nil, &CheckpointError{Viewer: ps.t.ID, Encoding: ps.cv.Encoding, Head: ps.cv.Head}
	}
	return data, nil
}

// each is windowSource.seekEach over the pieces (seek nil: each), then
// the messages appended after the checkpoint (more, their slots after
// slots): a piece none of whose messages is wanted is not read, one seek
// goes past not even visited.
func (ps *pieceSource) each(more []Message, slots int, seek func(i int) int, want func(i int) bool, arena func(i int) *hexArena, visit func(i int, m *Message) bool) bool {
	var m Message
	i := 0
	for k := 1; k < len(ps.pieces); k++ {
		p := ps.pieces[k]
		if seek != nil {
			i = max(i, seek(i))
		}
		if i >= p.first+p.rows {
			continue
		}
		var mr *messagesReader
		var data []byte
		for j := i - p.first; j < p.rows; j++ {
			if mr == nil && (want == nil || want(i)) {
				if mr, data = ps.open(k); mr == nil {
					return false
				}
				for range j { // the piece's messages before i
					if !mr.next(&m) {
						return false
					}
				}
			}
			var seen *Message
			if mr != nil {
				mr.arena = arena(i)
				if !mr.next(&m) {
					return false
				}
				seen = &m
			}
			if !visit(i, seen) {
				return true
			}
			i++
		}
		if mr != nil && mr.err() != nil {
			return false
		}
		if seek != nil && data != nil && len(ps.free) < maxFree {
			ps.free = append(ps.free, data)
		}
	}
	if seek != nil {
		i = max(i, seek(i))
	}
	for _, am := range more[min(len(more), i-ps.rows()):] {
		am.Slot += slots
		if !visit(i, &am) {
			return true
		}
		i++
	}
	return true
}

// rows is how many messages the pieces hold.
func (ps *pieceSource) rows() int {
	last := ps.pieces[len(ps.pieces)-1]
	return last.first + last.rows
}

// open reads piece k and returns a reader of its messages and the
// piece, nil (ps.err set) when it cannot be read.
func (ps *pieceSource) open(k int) (*messagesReader, []byte) {
	p := ps.pieces[k]
	data, err := ps.piece(k)
	if err != nil {
		ps.err = err
		return nil, nil
	}
	mr := &messagesReader{authors: ps.authors, slot: p.slot, left: p.rows}
	if len(data) > 0 {
		mr.r.s = unsafe.String(&data[0], len(data))
	}
	return mr, data
}
