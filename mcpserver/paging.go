package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/agentlineage/lineage/internal/tokens"
)

// DefaultMaxResultTokens is the size a tool result stays under unless the
// server is configured otherwise.
const DefaultMaxResultTokens = 10000

// TokenCounter counts the tokens of a text; internal/tokens' counters fit.
type TokenCounter interface {
	Count(text string) int
}

// defaultTokens counts with o200k_base (loaded on first use); if the
// vocabulary cannot be loaded it falls back to [estimateTokens].
type defaultTokens struct {
	once sync.Once
	c    TokenCounter
}

func (d *defaultTokens) Count(text string) int {
	d.once.Do(func() {
		if c, err := tokens.Get(tokens.Default); err == nil {
			d.c = c
		} else {
			d.c = estimateTokens{}
		}
	})
	return d.c.Count(text)
}

// estimateTokens is a conservative estimate: one token per three bytes,
// rounded up. Real tokenizers average about four bytes per token on
// English and JSON, so it errs on the safe side.
type estimateTokens struct{}

func (estimateTokens) Count(text string) int { return (len(text) + 2) / 3 }

// cursor is the opaque position of a paged list: the key of the next item
// and a tag naming what was listed, so a cursor is not reused for another
// list by mistake.
type cursor struct {
	List string `json:"l"`
	Next string `json:"n"`
}

func encodeCursor(list, next string) string {
	b, _ := json.Marshal(cursor{List: list, Next: next})
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadCursor = errors.New("invalid cursor (pass the nextCursor of the previous page unchanged)")

// decodeCursor returns the key a cursor continues from; "" starts at the
// beginning.
func decodeCursor(list, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", errBadCursor
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Next == "" {
		return "", errBadCursor
	}
	if c.List != list {
		return "", fmt.Errorf("cursor belongs to another list (%s, not %s)", c.List, list)
	}
	return c.Next, nil
}

// page is the part of a list result that fits: items are added while the
// result, measured with measure, stays within max tokens. At least one
// item is always returned so paging makes progress.
func fitPage[T any](items []T, max int, measure func([]T) int) (kept []T, more bool) {
	if len(items) == 0 {
		return items, false
	}
	// Binary search for the longest prefix that fits.
	lo, hi := 1, len(items)
	if measure(items) <= max {
		return items, false
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if measure(items[:mid]) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return items[:lo], lo < len(items)
}

// remarshal converts v to out through JSON.
func remarshal(v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
