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
}

const lineCountBytes = 4 << 20

// count is c's count of text, chunk by chunk.
func (l *lineCounts) count(c TokenCounter, text string) int {
	chunks := splitChunks(text)
	total := 0
	var missed []string
	l.mu.Lock()
	for _, ch := range chunks {
		if n, ok := l.m[ch]; ok {
			total += n
		} else {
			missed = append(missed, ch)
		}
	}
	l.mu.Unlock()
	if len(missed) == 0 {
		return total
	}
	counts := make([]int, len(missed))
	for i, ch := range missed {
		counts[i] = c.Count(ch)
		total += counts[i]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, ch := range missed {
		if l.m == nil || l.bytes+len(ch) > lineCountBytes {
			l.m, l.bytes = map[string]int{}, 0
		}
		if len(ch) > lineCountBytes/8 {
			continue
		}
		if _, ok := l.m[ch]; !ok {
			// A copy: the chunk points into the whole text.
			l.m[strings.Clone(ch)] = counts[i]
			l.bytes += len(ch)
		}
	}
	return total
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
