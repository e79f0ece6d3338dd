package tokens

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
	// Default is the encoding used when none is asked for.
	Default = O200kBase
)

// Counter counts the tokens of a text in one encoding.
type Counter interface {
	// Encoding names the encoding, e.g. "o200k_base".
	Encoding() string
	// Count returns the number of tokens of text.
	Count(text string) int
}

// Encodings lists the supported encoding names, sorted.
func Encodings() []string {
	names := []string{O200kBase, Cl100kBase}
	sort.Strings(names)
	return names
}

var (
	mu       sync.Mutex
	counters = map[string]*codecCounter{}
)

// Get returns the counter for encoding ("" means [Default]). Unknown names
// are an error listing the supported ones. The vocabulary is loaded on the
// counter's first Count, not here: a compile whose counts are all stored
// never pays for it (tens of milliseconds and tens of megabytes).
func Get(encoding string) (Counter, error) {
	if encoding == "" {
		encoding = Default
	}
	mu.Lock()
	defer mu.Unlock()
	if c, ok := counters[encoding]; ok {
		return c, nil
	}
	var enc tokenizer.Encoding
	switch encoding {
	case O200kBase:
		enc = tokenizer.O200kBase
	case Cl100kBase:
		enc = tokenizer.Cl100kBase
	default:
		return nil, fmt.Errorf("unknown token encoding %q (supported: %s, %s)", encoding, O200kBase, Cl100kBase)
	}
	c := &codecCounter{name: encoding, enc: enc}
	counters[encoding] = c
	return c, nil
}

// Loaded returns encoding's counter when this process has already loaded
// its vocabulary, without loading it: callers that only want counts when
// they are cheap.
func Loaded(encoding string) (Counter, bool) {
	if encoding == "" {
		encoding = Default
	}
	mu.Lock()
	c, ok := counters[encoding]
	mu.Unlock()
	if !ok || !c.ready.Load() {
		return nil, false
	}
	return c, true
}

type codecCounter struct {
	name  string
	enc   tokenizer.Encoding
	once  sync.Once
	ready atomic.Bool
	codec tokenizer.Codec
}

// load reads the vocabulary once; nil when it cannot be loaded (it is
// compiled into the binary, so only a broken build gets there).
func (c *codecCounter) load() tokenizer.Codec {
	c.once.Do(func() {
		if codec, err := tokenizer.Get(c.enc); err == nil {
			c.codec = codec
			c.ready.Store(true)
		}
	})
	return c.codec
}

func (c *codecCounter) Encoding() string { return c.name }

func (c *codecCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	codec := c.load()
	if codec == nil {
		return len(text)
	}
	n, err := codec.Count(text)
	if err != nil {
		// Only the strict error mode fails, and it is not used: count the
		// bytes so a caller never sees zero tokens for a non-empty text.
		return len(text)
	}
	return n
}

// Func adapts a function to [Counter], for tests.
type Func struct {
	Name string
	Fn   func(string) int
}

func (f Func) Encoding() string      { return f.Name }
func (f Func) Count(text string) int { return f.Fn(text) }
