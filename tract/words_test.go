package tract

import (
	"math/rand/v2"
	"slices"
	"strconv"
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

// BenchmarkWords cuts a 256 KB text of a transcript's kind (a few thousand
// distinct words, most of them repeated, code and prose mixed, some of it
// not ASCII).
func BenchmarkWords(b *testing.B) {
	var sb strings.Builder
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.2, 1, 5000)
	for sb.Len() < 256<<10 {
		n := z.Uint64()
		if n%7 == 0 {
			sb.WriteString("Func")
		}
		if n%97 == 0 {
			sb.WriteString("naïve … ")
		}
		sb.WriteString(strconv.FormatUint(n*2654435761%1000003, 36))
		sb.WriteString([]string{" ", ", ", "(", ".", "\n", " = "}[n%6])
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Words(text)
	}
}

// BenchmarkWordsShort cuts a message of a few dozen words, the common case.
func BenchmarkWordsShort(b *testing.B) {
	text := "Item 42 changed in turn 7: the totals moved and two rows were renamed. Please look at item 43 in the report and tell me what changed."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Words(text)
	}
}
