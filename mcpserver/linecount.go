package mcpserver

import (
	"strings"
	"sync"
)

// lineCounts counts the tokens of a long text chunk by chunk and remembers
// each chunk's count, so a text that differs from the last one by a few
// lines (the request context_compile answers every turn: a message more)
// costs the tokenizer only those lines. A chunk ends at a line break
// followed by a printable ASCII character other than "/": the
// tokenizers' pieces never cross such a break (only whitespace, and "/"
// after punctuation, continue a piece past a line break), so the chunks'
// counts add up to the whole text's. It holds at most lineCountBytes of
// text and forgets everything when full.
type lineCounts struct {
	mu    sync.Mutex
	m     map[string]int
	bytes int
	// prev and prevCounts are the last text's chunks and their counts:
	// the next text is mostly the same chunks in the same order (a
	// message more, the oldest dropped), found by comparing, without
	// hashing.
	prev       []string
	prevCounts []int
}

// prevSearch is how far past the expected position count looks for a
// chunk among the last text's.
const prevSearch = 8

const lineCountBytes = 4 << 20

// count is c's count of text, chunk by chunk.
func (l *lineCounts) count(c TokenCounter, text string) int {
	chunks := splitChunks(text)
	chunkCounts := make([]int, len(chunks))
	total := 0
	var missed []int
	l.mu.Lock()
	j := 0
	for i, ch := range chunks {
		if k := l.findPrev(ch, j); k >= 0 {
			chunkCounts[i], j = l.prevCounts[k], k+1
		} else if n, ok := l.m[ch]; ok {
			chunkCounts[i] = n
		} else {
			missed = append(missed, i)
			continue
		}
		total += chunkCounts[i]
	}
	l.mu.Unlock()
	for _, i := range missed {
		chunkCounts[i] = c.Count(chunks[i])
		total += chunkCounts[i]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prev, l.prevCounts = chunks, chunkCounts
	if len(missed) == 0 {
		return total
	}
	for _, i := range missed {
		ch := chunks[i]
		if l.m == nil || l.bytes+len(ch) > lineCountBytes {
			l.m, l.bytes = map[string]int{}, 0
		}
		if len(ch) > lineCountBytes/8 {
			continue
		}
		if _, ok := l.m[ch]; !ok {
			// A copy: the chunk points into the whole text.
			l.m[strings.Clone(ch)] = chunkCounts[i]
			l.bytes += len(ch)
		}
	}
	return total
}

// findPrev is the index of the last text's chunk equal to ch, looking
// from j on, or -1.
func (l *lineCounts) findPrev(ch string, j int) int {
	for k := j; k < len(l.prev) && k < j+prevSearch; k++ {
		if l.prev[k] == ch {
			return k
		}
	}
	return -1
}

// splitChunks cuts text after every line break followed by a printable
// ASCII character other than "/".
func splitChunks(text string) []string {
	out := make([]string, 0, strings.Count(text, "\n")+1)
	start := 0
	for i := 0; ; {
		k := strings.IndexByte(text[i:], '\n')
		if k < 0 || i+k+1 >= len(text) {
			break
		}
		i += k + 1
		if c := text[i]; c > ' ' && c < 0x7f && c != '/' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
