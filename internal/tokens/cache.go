package tokens

import "sync"

// Cache remembers token counts of texts counted again and again (each
// instruction file's part, each profile field a request holds every
// turn), so a process that counts them every turn tokenizes each once. It
// holds at most cacheBytes of text and forgets everything when full; a
// count is a pure function of its encoding and text, so what it remembers
// never changes a result. The process's one cache is Shared; the zero
// value is ready. Safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	m     map[cacheKey]int
	bytes int
}

type cacheKey struct{ encoding, text string }

// cacheBytes bounds the text a Cache holds; a text over an eighth of it is
// counted every time.
const cacheBytes = 8 << 20

// Shared is the process's token-count cache.
var Shared = new(Cache)

// Lookup is the count of text in encoding, if remembered.
func (c *Cache) Lookup(encoding, text string) (int, bool) {
	c.mu.Lock()
	n, ok := c.m[cacheKey{encoding, text}]
	c.mu.Unlock()
	return n, ok
}

// Remember keeps n as the count of text in encoding.
func (c *Cache) Remember(encoding, text string, n int) {
	if len(text) > cacheBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(text) > cacheBytes {
		c.m = map[cacheKey]int{}
		c.bytes = 0
	}
	k := cacheKey{encoding, text}
	if _, ok := c.m[k]; !ok {
		c.m[k] = n
		c.bytes += len(text)
	}
}

// Count is counter's count of text, from the cache when remembered.
func (c *Cache) Count(counter Counter, text string) int {
	if n, ok := c.Lookup(counter.Encoding(), text); ok {
		return n
	}
	n := counter.Count(text)
	c.Remember(counter.Encoding(), text, n)
	return n
}

// Reset forgets every count (tests).
func (c *Cache) Reset() {
	c.mu.Lock()
	c.m, c.bytes = nil, 0
	c.mu.Unlock()
}
