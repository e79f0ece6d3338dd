package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

// BenchmarkUpsertIn1000 replaces one entry in place in an agency document
// of 1,000 entries: the lookup by id is linear in the entries, the rest is
// the same read/encode/atomic write as an append.
func BenchmarkUpsertIn1000(b *testing.B) {
	root := tempRoot(b)
	write(b, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@ws.agency.triad.json": agencyWith(1000)})
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-11-22T10:00:00Z")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e := LogEntry{Entry: Entry{Slug: "s", Note: fmt.Sprint("v", i), Signature: "-s", ID: "e500"}, Upsert: true,
			Contributions: []Contribution{{By: "s", Type: "code", Evidence: "e"}}}
		if _, err := Log(context.Background(), opts, e); err != nil {
			b.Fatal(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, ".clia/agents/s/s@ws.agency.triad.json")); err != nil || fi.Size() == 0 {
		b.Fatal(err)
	}
}
