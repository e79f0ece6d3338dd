package tokens

import (
	"fmt"
	"sort"
	"sync"

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
	mu     sync.Mutex
	loaded = map[string]*codecCounter{}
)

// Get returns the counter for encoding ("" means [Default]). Unknown names
// are an error listing the supported ones.
func Get(encoding string) (Counter, error) {
	if encoding == "" {
		encoding = Default
	}
	mu.Lock()
	defer mu.Unlock()
	if c, ok := loaded[encoding]; ok {
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
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("load token encoding %s: %w", encoding, err)
	}
	c := &codecCounter{name: encoding, codec: codec}
	loaded[encoding] = c
	return c, nil
}

// Loaded returns encoding's counter when this process has already loaded
// it, without loading it: callers that only want counts when they are cheap.
func Loaded(encoding string) (Counter, bool) {
	if encoding == "" {
		encoding = Default
	}
	mu.Lock()
	defer mu.Unlock()
	c, ok := loaded[encoding]
	return c, ok
}

type codecCounter struct {
	name  string
	codec tokenizer.Codec
}

func (c *codecCounter) Encoding() string { return c.name }

func (c *codecCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	n, err := c.codec.Count(text)
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
