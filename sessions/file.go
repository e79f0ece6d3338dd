package sessions

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// line is one complete line of a transcript.
type line struct {
	// N is the 1-based line number in the file.
	N int
	// Offset is the byte offset of the line's start.
	Offset int64
	Data   []byte
}

// tail is what a read of a transcript from a cursor found: its complete
// lines and the cursor after the last of them.
type tail struct {
	Lines []line
	Next  Cursor
}

// readTail reads path from the cursor to its last complete line. The file
// is opened through a root at its folder, so a symbolic link in the name's
// last element cannot lead the read elsewhere. A file shorter than the
// cursor's offset is ErrCursorStale.
func readTail(path string, from Cursor) (tail, error) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return tail{}, err
	}
	defer root.Close()
	// A FIFO or device where a transcript is expected would block the
	// open (and the hook with it): refuse what is not a regular file
	// before opening; the check after the open stays for a swap between.
	if fi, err := root.Lstat(filepath.Base(path)); err == nil && !fi.Mode().IsRegular() {
		return tail{}, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := root.Open(filepath.Base(path))
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return tail{}, err
	}
	if !st.Mode().IsRegular() {
		return tail{}, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() < from.Offset {
		return tail{}, fmt.Errorf("%s: %d bytes, the cursor is at %d: %w", path, st.Size(), from.Offset, ErrCursorStale)
	}
	data := make([]byte, st.Size()-from.Offset)
	n, err := f.ReadAt(data, from.Offset)
	if err != nil && err != io.EOF {
		return tail{}, err
	}
	return splitLines(data[:n], from), nil
}

// splitLines cuts data, read at cursor from, into complete lines; a last
// line without its newline is left for the next read.
func splitLines(data []byte, from Cursor) tail {
	end := bytes.LastIndexByte(data, '\n') + 1
	t := tail{Next: Cursor{Offset: from.Offset + int64(end), Line: from.Line, LastKey: from.LastKey, Ordinal: from.Ordinal}}
	off := 0
	for off < end {
		i := bytes.IndexByte(data[off:end], '\n')
		t.Next.Line++
		l := data[off : off+i]
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(bytes.TrimSpace(l)) > 0 {
			t.Lines = append(t.Lines, line{N: t.Next.Line, Offset: from.Offset + int64(off), Data: l})
		}
		off += i + 1
	}
	return t
}
