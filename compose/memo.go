package compose

import (
	"sync"

	"github.com/agentlineage/lineage/internal/tokens"
)

// memo remembers token counts of the texts a compile counts again and
// again — each instruction file's part, each profile field — so a warm
// compile (an MCP server answering every turn) does not re-tokenize files
// that did not change. It holds at most memoBytes of text and forgets
// everything when full; a count is a pure function of its text, so what it
// remembers never changes an output.
var memo = struct {
	sync.Mutex
	m     map[memoKey]int
	bytes int
}{m: map[memoKey]int{}}

type memoKey struct{ encoding, text string }

const memoBytes = 8 << 20

// count is c.Count(text), remembered in the process and, when given, in
// file.
func count(c tokens.Counter, file *CountFile, text string) int {
	k := memoKey{c.Encoding(), text}
	memo.Lock()
	n, ok := memo.m[k]
	memo.Unlock()
	if ok {
		return n
	}
	var key string
	if file != nil {
		key = countKey(c.Encoding(), text)
		n, ok = file.lookup(key)
	}
	if !ok {
		n = c.Count(text)
		if file != nil {
			file.remember(key, n)
		}
	}
	if len(text) > memoBytes/8 {
		return n
	}
	memo.Lock()
	defer memo.Unlock()
	if memo.bytes+len(text) > memoBytes {
		clear(memo.m)
		memo.bytes = 0
	}
	if _, ok := memo.m[k]; !ok {
		memo.m[k] = n
		memo.bytes += len(text)
	}
	return n
}
