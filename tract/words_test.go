package tract

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// wordsByMap is Words as it was first written (a set, then a sort): the
// reference the faster one must agree with.
func wordsByMap(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len(w) > maxWordBytes || seen[w] || !utf8.ValidString(w) {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

func FuzzWords(f *testing.F) {
	f.Add("The quick brown fox, the QUICK dog: 42 x42 42")
	f.Add("Ünïcode ÜNÏCODE naïve 日本語 テキスト ٣٤ \xff\xfe bad")
	f.Add(strings.Repeat("a", 65) + " " + strings.Repeat("b", 64) + " a-b_c.d")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		got, want := Words(text), wordsByMap(text)
		if !slices.Equal(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", text, got, want)
		}
	})
}
