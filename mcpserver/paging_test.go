package mcpserver

import (
	"strings"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	c := encodeCursor("log:main", "abc123")
	got, err := decodeCursor("log:main", c)
	if err != nil || got != "abc123" {
		t.Fatalf("decode = %q, %v", got, err)
	}
	if got, err := decodeCursor("log:main", ""); err != nil || got != "" {
		t.Fatalf("empty cursor = %q, %v", got, err)
	}
	if _, err := decodeCursor("log:other", c); err == nil || !strings.Contains(err.Error(), "another list") {
		t.Fatalf("cursor of another list: %v", err)
	}
	for _, bad := range []string{"!!!", "e30", encodeCursor("log:main", "")} {
		if _, err := decodeCursor("log:main", bad); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add("log:main", encodeCursor("log:main", "x"))
	f.Add("", "e30")
	f.Add("a", "not base64!")
	f.Fuzz(func(t *testing.T, list, c string) {
		next, err := decodeCursor(list, c)
		if err == nil && c != "" && next == "" {
			t.Fatalf("cursor %q decoded to an empty position", c)
		}
	})
}

func TestFitPage(t *testing.T) {
	items := []string{"aaaa", "bbbb", "cccc", "dddd"}
	measure := func(s []string) int { return len(strings.Join(s, "")) }
	tests := []struct {
		max      int
		wantLen  int
		wantMore bool
	}{
		{100, 4, false},
		{16, 4, false},
		{15, 3, true},
		{8, 2, true},
		{1, 1, true}, // always one item, so paging makes progress
	}
	for _, tt := range tests {
		kept, more := fitPage(items, tt.max, measure)
		if len(kept) != tt.wantLen || more != tt.wantMore {
			t.Errorf("max %d: %d items, more %v; want %d, %v", tt.max, len(kept), more, tt.wantLen, tt.wantMore)
		}
	}
	if kept, more := fitPage([]string{}, 1, measure); len(kept) != 0 || more {
		t.Error("empty list")
	}
}

func TestEstimateTokensIsConservative(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "abc": 1, "abcd": 2} {
		if got := (estimateTokens{}).Count(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	}
}
