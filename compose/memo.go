package compose

import (
	"github.com/agentlineage/lineage/internal/tokens"
)

// count is c.Count(text), remembered in the process (tokens.Shared, the
// one token-count cache) and, when given, in file: a warm compile (an MCP
// server answering every turn) does not re-tokenize files that did not
// change, and a one-shot run does not load the tokenizer for them.
func count(c tokens.Counter, file *CountFile, text string) int {
	if n, ok := tokens.Shared.Lookup(c.Encoding(), text); ok {
		return n
	}
	var key string
	n, ok := 0, false
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
	tokens.Shared.Remember(c.Encoding(), text, n)
	return n
}
