package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

// BenchmarkAppendTo1000 appends one entry to an agency document of 1,000
// entries (restored before every iteration): lock, read, decode, insert,
// encode, write, fsync, rename, fsync of the directory.
func BenchmarkAppendTo1000(b *testing.B) {
	root := tempRoot(b)
	content := []byte(agencyWith(1000))
	file := filepath.Join(root, ".clia/agents/s/s@ws.agency.triad.json")
	write(b, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@ws.agency.triad.json": string(content)})
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-11-22T10:00:00Z")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(file, content, 0o644)
		b.StartTimer()
		if _, err := Append(context.Background(), opts, Entry{Slug: "s", Note: fmt.Sprint("bench ", i), Signature: "-s"}); err != nil {
			b.Fatal(err)
		}
	}
}

// agencyWith is an agency document of n typical entries, ids e0…e(n-1).
func agencyWith(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{"id":"e%d","timestamp":"2026-01-01T00:00:00Z","kind":"journal","title":"entry %d","summary":"a summary of a typical length for one entry","tags":["a","b"],"contributions":[{"by":"s","types":[{"type":"journal","weight":1,"evidence":"x"}]}]}`, i, i)
	}
	return `{"schemaVersion":"0.4.0","entries":[` + sb.String() + `]}`
}
