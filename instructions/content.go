package instructions

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/fsx"
)

// fileContent is what reading one chain file gave.
type fileContent struct {
	text string
	// fits is false when the content is larger than the budget; text is
	// then not the whole content, and known says whether len(text) is its
	// exact size (the file was read to its end).
	fits, known bool
	warning     string
}

// readContent reads the content of the regular file at path against a
// budget of content bytes. It reads at most budget+1 bytes (plus the rest
// of a character cut there), and past that only trailing whitespace, which
// is trimmed and costs nothing: a 200 MB file is judged from its first
// budget+1 bytes, and a file that fits exactly is loaded even with a
// trailing newline beyond the budget.
func readContent(fsys FS, path string, budget int) (fileContent, error) {
	r, err := fsys.OpenRegular(path)
	if err != nil {
		return fileContent{}, err
	}
	return readFrom(r, path, budget)
}

// readFrom is [readContent] on an opened file, which it closes.
func readFrom(r io.ReadCloser, path string, budget int) (fileContent, error) {
	defer r.Close()
	br := bufio.NewReader(r)
	head, err := io.ReadAll(io.LimitReader(br, int64(budget)+1))
	if err != nil {
		return fileContent{}, err
	}
	if len(head) <= budget {
		text, warn := cleanContent(path, head)
		return fileContent{text: text, fits: len(text) <= budget, known: true, warning: warn}, nil
	}
	for i := 1; i < utf8.UTFMax && !fullLastRune(head); i++ {
		b, err := br.ReadByte()
		if err != nil {
			break
		}
		head = append(head, b)
	}
	text, warn := cleanContent(path, head)
	if len(text) > budget {
		return fileContent{text: text}, nil
	}
	for {
		c, size, err := br.ReadRune()
		if err == io.EOF {
			return fileContent{text: text, fits: true, known: true, warning: warn}, nil
		}
		if err != nil {
			return fileContent{}, err
		}
		if !unicode.IsSpace(c) || (c == utf8.RuneError && size == 1) {
			return fileContent{text: text}, nil
		}
	}
}

// fullLastRune reports whether b does not end inside a UTF-8 sequence.
func fullLastRune(b []byte) bool {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return utf8.FullRune(b[i:])
		}
	}
	return true
}

// cleanContent trims trailing whitespace, turns CRLF line endings into LF
// (the initial block's own lines end in LF, so a file saved on Windows does
// not give mixed line endings; caps count the content after this), and
// replaces invalid UTF-8 with U+FFFD, returning a warning when it had to.
func cleanContent(path string, raw []byte) (content, warning string) {
	s := strings.ReplaceAll(string(raw), "\r\n", "\n")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		warning = fmt.Sprintf("%s: invalid UTF-8 replaced with U+FFFD", fsx.LineSafe(path))
	}
	return strings.TrimRightFunc(s, unicode.IsSpace), warning
}
