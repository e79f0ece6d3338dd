package tokens

import (
	"strings"
	"testing"
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
