package mcpserver

import (
	"encoding/json"
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
// counts add up to the whole text's. It remembers each chunk's JSON
// string form too (encoding/json's, HTML-escaped, without the quotes):
// JSON escapes a character at a time and a chunk ends at a line break, so
// the chunks' forms make the whole text's (see quoted). It holds at most
// lineCountBytes of text and forgets everything when full.
type lineCounts struct {
	mu    sync.Mutex
	m     map[string]chunkInfo
	bytes int
	// prev and prevInfo are the last text's chunks and what is known of
	// them: the next text is mostly the same chunks in the same order (a
	// message more, the oldest dropped), found by comparing, without
	// hashing.
	prev     []string
	prevInfo []chunkInfo
	// spare and spareInfo are the lists of the text before last: no call
	// looks at them any more (prev and prevInfo are only read under mu,
	// and their own call is done with them once it sets them), so the
	// next call splits its text into them.
	spare     []string
	spareInfo []chunkInfo
}

// chunkInfo is a chunk's token count and JSON string form.
type chunkInfo struct {
	tokens int
	json   []byte
}

// prevSearch is how far past the expected position count looks for a
// chunk among the last text's.
const prevSearch = 8

const lineCountBytes = 4 << 20

// count is c's count of text, chunk by chunk.
func (l *lineCounts) count(c TokenCounter, text string) int {
	n, _, _ := l.countQuoted(c, text, false, -1)
	return n
}

// uncounted marks a chunk whose tokens are not known (its JSON form may be).
const uncounted = -1

// countQuoted is count and, with quote, text as a JSON string (as
// encoding/json writes it, the quotes left out) in pieces, both made of
// the chunks' remembered ones.
//
// With limit >= 0, only whether the count is at most limit matters: the
// last chunk, which the next text changes (where it ends with the frame's
// close, the next text has a comma and the new messages), is tokenized
// only when the count with its bytes in place of its tokens — a token is
// at least a byte — passes limit. The count returned is then that bound
// (at most limit, and at least the text's count). Once the count passes
// limit, counting stops (the rest stays uncounted) and nothing is quoted:
// the count returned is then more than limit and at most the text's; a
// request that can never be inline costs the tokenizer only the chunks
// up to the limit.
func (l *lineCounts) countQuoted(c TokenCounter, text string, quote bool, limit int) (int, [][]byte, error) {
	l.mu.Lock()
	chunks, infos := l.spare[:0], l.spareInfo[:0]
	l.spare, l.spareInfo = nil, nil
	l.mu.Unlock()
	chunks = splitChunksInto(chunks, text)
	if cap(infos) < len(chunks) {
		infos = make([]chunkInfo, len(chunks), len(chunks)+len(chunks)/8)
	} else {
		infos = infos[:len(chunks)]
		clear(infos)
	}
	total, missed := l.known(chunks, infos)
	total, missed = countMissed(c, chunks, infos, total, missed, limit)
	// What to remember: the chunks counted now, and those whose JSON
	// form is made now.
	learned := missed
	var quoted [][]byte
	if quote && (limit < 0 || total <= limit) {
		quoted = make([][]byte, len(infos))
		for i := range infos {
			if infos[i].json == nil {
				q, err := json.Marshal(chunks[i])
				if err != nil {
					return 0, nil, err
				}
				infos[i].json = q[1 : len(q)-1 : len(q)-1]
				learned = append(learned, i)
			}
			quoted[i] = infos[i].json
		}
	}
	l.remember(chunks, infos, learned)
	return total, quoted, nil
}

// known fills infos with what is remembered of chunks (the last text's
// chunks first, then the map) and returns the tokens of the counted ones
// and the indexes of those whose tokens are not known.
func (l *lineCounts) known(chunks []string, infos []chunkInfo) (total int, missed []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	j := 0
	for i, ch := range chunks {
		if k := l.findPrev(ch, j); k >= 0 {
			infos[i], j = l.prevInfo[k], k+1
		} else if info, ok := l.m[ch]; ok {
			infos[i] = info
		} else {
			missed = append(missed, i)
			continue
		}
		if infos[i].tokens == uncounted {
			missed = append(missed, i)
			continue
		}
		total += infos[i].tokens
	}
	return total, missed
}

// countMissed counts the missed chunks and adds them to total. With
// limit >= 0 the last chunk, when missed, is counted only when its bytes
// in place of its tokens would pass limit (else it stays uncounted and
// off the returned missed list), and counting stops once total passes
// limit: the chunks not counted stay uncounted and off the list.
func countMissed(c TokenCounter, chunks []string, infos []chunkInfo, total int, missed []int, limit int) (int, []int) {
	last := len(chunks) - 1
	bounded := limit >= 0 && len(missed) > 0 && missed[len(missed)-1] == last
	if bounded {
		missed = missed[:len(missed)-1]
	}
	for k, i := range missed {
		if limit >= 0 && total > limit {
			// The answer is known: the rest stay uncounted.
			for _, j := range missed[k:] {
				infos[j].tokens = uncounted
			}
			if bounded {
				infos[last].tokens = uncounted
			}
			return total, missed[:k]
		}
		infos[i].tokens = c.Count(chunks[i])
		total += infos[i].tokens
	}
	if bounded && total > limit {
		infos[last].tokens = uncounted
		return total, missed
	}
	if bounded {
		if total+len(chunks[last]) <= limit {
			infos[last].tokens = uncounted
			total += len(chunks[last])
		} else {
			infos[last].tokens = c.Count(chunks[last])
			total += infos[last].tokens
			missed = append(missed, last)
		}
	}
	return total, missed
}

// remember keeps chunks as the last text's and adds the learned ones to
// the map (forgetting everything when it is full); the lists before last
// become the spare ones.
func (l *lineCounts) remember(chunks []string, infos []chunkInfo, learned []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The lists before last are free now; clear what they point to.
	clear(l.prev[:cap(l.prev)])
	clear(l.prevInfo[:cap(l.prevInfo)])
	l.spare, l.spareInfo = l.prev, l.prevInfo
	l.prev, l.prevInfo = chunks, infos
	for _, i := range learned {
		ch := chunks[i]
		if len(ch) > lineCountBytes/8 || infos[i].tokens == uncounted {
			continue
		}
		info, ok := l.m[ch]
		switch {
		case ok && (info.json != nil || infos[i].json == nil):
			continue
		case !ok && (l.m == nil || l.bytes+len(ch)+len(infos[i].json) > lineCountBytes):
			l.m, l.bytes = map[string]chunkInfo{}, 0
		}
		if !ok {
			// A copy: the chunk points into the whole text.
			ch = strings.Clone(ch)
			l.bytes += len(ch)
		}
		l.bytes += len(infos[i].json)
		l.m[ch] = infos[i]
	}
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
func splitChunks(text string) []string { return splitChunksInto(nil, text) }

// splitChunksInto is splitChunks appending to out (its memory reused when
// it has room).
func splitChunksInto(out []string, text string) []string {
	if n := strings.Count(text, "\n") + 1; cap(out) < n {
		out = make([]string, 0, n+n/8)
	}
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
