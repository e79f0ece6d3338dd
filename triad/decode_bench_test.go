package triad

import (
	"fmt"
	"strings"
	"testing"
)

func agency1000() []byte {
	var sb strings.Builder
	sb.WriteString(`{"schemaVersion":"0.4.0","entries":[`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"id":"e%d","timestamp":"2026-01-01T00:00:00Z","kind":"journal","title":"entry %d","summary":"a summary of a typical length for one entry","tags":["a","b"],"contributions":[{"by":"s","types":[{"type":"journal","weight":1,"evidence":"x"}]}]}`, i, i)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// BenchmarkDecodeAgency1000 decodes a 1,000-entry agency document.
func BenchmarkDecodeAgency1000(b *testing.B) {
	data := agency1000()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := Decode("bench", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeAgency1000 encodes it back, indented.
func BenchmarkEncodeAgency1000(b *testing.B) {
	v, _ := Decode("bench", agency1000())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Encode(v, EncodeOptions{})
	}
}
