package agents

import (
	"bytes"
	"fmt"
	"sort"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// MaxGitmodulesBytes is the largest .gitmodules file read; a larger one is
// reported as a warning and ignored.
const MaxGitmodulesBytes = 32 << 20

// sectionsPerChunk bounds the sections one decoder sees. The go-git decoder
// looks a subsection up by scanning every subsection of its section, which
// makes a file of n submodules cost n²/2 comparisons (20k entries: 2.4 s);
// decoding chunks of at most this many section headers costs n·k.
const sectionsPerChunk = 256

// ParseGitmodules returns the path of every submodule declared in a
// .gitmodules file, parsed as git config (sections, quoting, '#' and ';'
// comments), in byte-wise order without duplicates or blanks. Its cost is
// linear in the size of the file.
func ParseGitmodules(data []byte) (paths []string, err error) {
	return parseGitmodules(data, sectionsPerChunk)
}

func parseGitmodules(data []byte, perChunk int) (paths []string, err error) {
	defer func() {
		// The config decoder is not ours; a panic on odd input must not be.
		if r := recover(); r != nil {
			paths, err = nil, fmt.Errorf("parse .gitmodules: %v", r)
		}
	}()
	seen := map[string]bool{}
	for _, c := range sectionChunks(data, perChunk) {
		cfg := gitconfig.New()
		if err := gitconfig.NewDecoder(bytes.NewReader(c.data)).Decode(cfg); err != nil {
			if c.line > 1 {
				return nil, fmt.Errorf("parse .gitmodules: in the part from line %d: %w", c.line, err)
			}
			return nil, fmt.Errorf("parse .gitmodules: %w", err)
		}
		for _, s := range cfg.Sections {
			if !s.IsName("submodule") {
				continue
			}
			for _, sub := range s.Subsections {
				for _, p := range sub.OptionAll("path") {
					if p != "" && !seen[p] {
						seen[p] = true
						paths = append(paths, p)
					}
				}
			}
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// chunk is a run of whole sections of a config file and the line it starts on.
type chunk struct {
	data []byte
	line int
}

// sectionChunks cuts data before section header lines so that each chunk
// holds at most perChunk headers. A cut is made only before a line whose
// first non-blank byte is '[' and whose previous line does not end in a
// backslash (a value continued onto that line): such a line can only be a
// header, so each chunk decodes exactly as it would within the whole file,
// and the submodule paths are a union over sections anyway. Not cutting is
// always safe; cutting is done only where it is certain.
func sectionChunks(data []byte, perChunk int) []chunk {
	var out []chunk
	start, startLine, headers := 0, 1, 0
	line, prevContinues := 1, false
	for pos := 0; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(data)
		}
		text := bytes.TrimRight(data[pos:end], "\r")
		if t := bytes.TrimLeft(text, " \t"); len(t) > 0 && t[0] == '[' && !prevContinues {
			if headers == perChunk {
				out = append(out, chunk{data: data[start:pos], line: startLine})
				start, startLine, headers = pos, line, 0
			}
			headers++
		}
		prevContinues = len(text) > 0 && text[len(text)-1] == '\\'
		pos = next
	}
	return append(out, chunk{data: data[start:], line: startLine})
}
