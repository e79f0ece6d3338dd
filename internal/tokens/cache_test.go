package tokens

import (
	"strings"
	"testing"
)

// The cache counts a text once, keys by encoding too, forgets everything
// when full and never holds a text over an eighth of its bound.
func TestCache(t *testing.T) {
	calls := 0
	f := func(name string) Func {
		return Func{Name: name, Fn: func(s string) int { calls++; return len(s) }}
	}
	var c Cache
	for range 3 {
		if n := c.Count(f("a"), "hello"); n != 5 {
			t.Fatalf("count %d", n)
		}
	}
	if calls != 1 {
		t.Fatalf("counted %d times, want 1", calls)
	}
	c.Count(f("b"), "hello")
	if calls != 2 {
		t.Fatalf("another encoding: %d calls, want 2", calls)
	}
	big := strings.Repeat("x", cacheBytes/8+1)
	c.Count(f("a"), big)
	c.Count(f("a"), big)
	if calls != 4 {
		t.Fatalf("a text over the bound was kept: %d calls", calls)
	}
	chunk := strings.Repeat("y", cacheBytes/8-1)
	for i := range 9 {
		c.Remember("a", chunk+string(rune('a'+i)), i)
	}
	if c.bytes > cacheBytes {
		t.Fatalf("holds %d bytes, bound %d", c.bytes, cacheBytes)
	}
	if _, ok := c.Lookup("a", "hello"); ok {
		t.Fatal("a full cache kept what it held before")
	}
}
