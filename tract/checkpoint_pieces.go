package tract

import (
	"errors"
	"math"
	"unsafe"
)

// A checkpoint's messages part is stored in pieces (CompiledView.Pieces):
// piece 0 is the layout's header (the tools, the author tracts, how many
// messages), each piece after it whole messages, at most pieceRows of them
// and about pieceBytes bytes. The index (CompiledView.Index, read with the
// header) lists each piece's first message, how many it holds, their
// tokens, the slot before its first one, its size and its SHA-256;
// MessagesSum is the index's sum, so the header's sum covers every piece.
// A read of the part whole checks every piece; a compile window reads the
// header piece and the pieces holding what it shows (window_pieces.go),
// each checked as it is read: a piece that does not match its sum is a
// damaged checkpoint (CheckpointError), as a whole part is.

// pieceRows and pieceBytes bound a piece (Options.CheckpointPiece sets the
// rows).
const (
	pieceRows  = 256
	pieceBytes = 64 << 10
)

// pieceInfo is one piece as the index lists it.
type pieceInfo struct {
	first, rows, tokens int
	// slot is the slot of the message before the piece's first (0 for
	// none): the layout writes slots as differences.
	slot int
	size int
	sum  Hash
}

// encodeIndex is the index of pieces, sums set from data (the part whole).
func encodeIndex(pieces []pieceInfo, data []byte) ([]byte, [][]byte) {
	w := &viewWriter{b: make([]byte, 0, 8+len(pieces)*48)}
	w.uint(uint64(len(pieces)))
	parts := make([][]byte, len(pieces))
	at := 0
	for i := range pieces {
		p := &pieces[i]
		parts[i] = data[at : at+p.size : at+p.size]
		at += p.size
		p.sum = sha256Hex(parts[i])
		w.uint(uint64(p.rows))
		w.int(int64(p.tokens))
		w.int(int64(p.slot))
		w.uint(uint64(p.size))
		w.hash(p.sum)
	}
	return w.b, parts
}

// decodeIndex reads what encodeIndex wrote.
func decodeIndex(index []byte) ([]pieceInfo, error) {
	if len(index) == 0 {
		return nil, errViewData
	}
	r := &viewReader{s: unsafe.String(&index[0], len(index))}
	n := r.count()
	if n == 0 {
		return nil, errViewData
	}
	pieces := make([]pieceInfo, n)
	arena := newHexArena(n)
	first := 0
	for i := range pieces {
		p := &pieces[i]
		p.first, p.rows, p.tokens, p.slot = first, int(r.uint()), int(r.int()), int(r.int())
		p.size = int(min(r.uint(), 1<<30))
		p.sum = arena.hash(r)
		first += p.rows
		if (i == 0) != (p.rows == 0) || p.size < 0 || r.err != nil {
			return nil, errViewData
		}
	}
	if r.err != nil || r.s != "" {
		return nil, errViewData
	}
	return pieces, nil
}

// piecesMatch reports whether data, a messages part whole, is the
// pieces index lists, each matching its sum.
func piecesMatch(index, data []byte) bool {
	pieces, err := decodeIndex(index)
	if err != nil {
		return false
	}
	at := 0
	for _, p := range pieces {
		if p.size > len(data)-at || !hashes(p.sum, data[at:at+p.size]) {
			return false
		}
		at += p.size
	}
	return at == len(data)
}

// errReplaced is a checkpoint replaced between two reads of it: it no
// longer serves the compile that planned it.
var errReplaced = errors.New("compile checkpoint replaced")

// JoinPieces reads a checkpoint whole, for a store: its header (read), then
// every piece of the checkpoint under the header's sum (pieces, which lends
// fn the pieces from..to-1 and returns how many), appended to the buffer
// alloc gives (nil alloc: a new one). A checkpoint replaced between the two
// reads leaves no piece under the sum read: the whole read is tried again,
// three times in all; after that the empty messages are damage the sums
// find.
func JoinPieces(read func() (CompiledView, error), alloc func() ([]byte, error),
	pieces func(sum Hash, from, to int, fn func(int, []byte) error) (int, error)) (CompiledView, error) {
	for try := 0; ; try++ {
		v, err := read()
		if err != nil {
			return v, err
		}
		v.Messages = []byte{}
		if alloc != nil {
			buf, err := alloc()
			if err != nil {
				return v, err
			}
			v.Messages = buf[:0]
		}
		n, err := pieces(v.Sum, 0, math.MaxInt32, func(_ int, data []byte) error {
			v.Messages = append(v.Messages, data...)
			return nil
		})
		if err != nil || n > 0 || try == 2 {
			return v, err
		}
	}
}
