package tokens

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

func TestCount(t *testing.T) {
	tests := []struct {
		enc  string
		text string
		want int
	}{
		{"", "hello world", 2},
		{O200kBase, "", 0},
		{O200kBase, "hello world", 2},
		{Cl100kBase, "hello world", 2},
		{Cl100kBase, "antidisestablishmentarianism", 6},
	}
	for _, tt := range tests {
		c, err := Get(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Count(tt.text); got != tt.want {
			t.Errorf("%s: Count(%q) = %d, want %d", c.Encoding(), tt.text, got, tt.want)
		}
	}
}

func TestEncodingsDiffer(t *testing.T) {
	o, _ := Get(O200kBase)
	c, _ := Get(Cl100kBase)
	text := strings.Repeat("Привет, мир! ", 20)
	if o.Count(text) == c.Count(text) {
		t.Errorf("o200k and cl100k agree on %q; expected different counts", text)
	}
}

func TestUnknownEncoding(t *testing.T) {
	_, err := Get("p50k_base")
	if err == nil || !strings.Contains(err.Error(), `unknown token encoding "p50k_base"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestSameCounterTwice(t *testing.T) {
	a, _ := Get(O200kBase)
	b, _ := Get("")
	if a != b {
		t.Error("Get loaded o200k_base twice")
	}
}

// TestVocabularyLoadsOnFirstCount: naming a counter loads nothing, so
// Loaded says counting is not cheap yet; the first Count loads it.
func TestVocabularyLoadsOnFirstCount(t *testing.T) {
	const name = "fresh_for_test"
	c := &codecCounter{name: name, enc: tokenizer.Cl100kBase}
	mu.Lock()
	counters[name] = c
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		delete(counters, name)
		mu.Unlock()
	})
	if _, ok := Loaded(name); ok || c.codec != nil {
		t.Fatal("counter loaded before its first count")
	}
	if n := c.Count(""); n != 0 || c.codec != nil {
		t.Fatalf("empty text: %d tokens, loaded %v", n, c.codec != nil)
	}
	if n := c.Count("antidisestablishmentarianism"); n != 6 {
		t.Fatalf("%d tokens, want 6", n)
	}
	if got, ok := Loaded(name); !ok || got != c {
		t.Fatal("Loaded after the first count:", ok)
	}
}
