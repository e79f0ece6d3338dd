package journal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

// looseLog is a newest-first log of n entries: strictly descending
// timestamps, then (loose) a few entries moved to random places and the
// oldest appended at the bottom made newer than the second — the shapes
// CLIA's own log and two corpus logs have.
func looseLog(r *rand.Rand, n int, loose bool) []string {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stamps := make([]string, n)
	t := base
	for i := n - 1; i >= 0; i-- {
		t = t.Add(time.Duration(1+r.IntN(48)) * time.Hour)
		stamps[i] = t.Format(time.RFC3339)
	}
	if loose && n > 4 {
		for k := r.IntN(n/5 + 1); k > 0; k-- {
			i, j := r.IntN(n), r.IntN(n)
			s := stamps[i]
			stamps = slices.Insert(slices.Delete(stamps, i, i+1), j, s)
		}
		if r.IntN(2) == 0 {
			stamps[n-1] = stamps[0][:11] + "00:00:01Z"
		}
	}
	return stamps
}

func logDoc(stamps []string) string {
	var b strings.Builder
	b.WriteString(`{"entries": [`)
	for i, ts := range stamps {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    {\"id\": \"e%d\", \"timestamp\": %q, \"kind\": \"journal\", \"title\": \"T%d\", \"summary\": \"s%d\"}", i, ts, i, i)
	}
	b.WriteString("\n  ]}\n")
	return b.String()
}

// An upsert puts its replacement where a new entry goes: first in a log
// that reads newest-first (strictly or loosely sorted), every other entry
// keeping its relative order, and the log still reads newest-first.
func TestUpsertOrderProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 1))
	for trial := range 120 {
		n := 1 + r.IntN(40)
		stamps := looseLog(r, n, trial%2 == 1)
		before := &triad.Value{Kind: triad.Array}
		for _, ts := range stamps {
			o := triad.NewObject()
			o.Set("timestamp", triad.NewString(ts))
			before.Items = append(before.Items, o)
		}
		if !newestFirst(before) {
			t.Fatalf("trial %d: generated log does not read newest-first: %v", trial, stamps)
		}
		root := tempRoot(t)
		agency := ".clia/agents/s/s@x.agency.triad.json"
		write(t, root, map[string]string{".git": "<dir>", agency: logDoc(stamps)})
		victim := r.IntN(n)
		opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2027-01-01T00:00:00Z")}
		res, err := Log(context.Background(), opts, LogEntry{Entry: Entry{Slug: "s", ID: fmt.Sprint("e", victim), Note: "again", Signature: "-S"}, Upsert: true})
		if err != nil || !res[0].Replaced {
			t.Fatalf("trial %d: %+v, %v", trial, res, err)
		}
		checkUpsertOrder(t, readDoc(t, filepath.Join(root, agency)).Get("entries"), n, fmt.Sprint("e", victim))
	}
}

func checkUpsertOrder(t *testing.T, entries *triad.Value, n int, id string) {
	t.Helper()
	if len(entries.Items) != n || entries.Items[0].Str("id") != id {
		t.Fatalf("replacement %s not first of %d: %d entries, first %s", id, n, len(entries.Items), entries.Items[0].Str("id"))
	}
	prev := -1
	for _, e := range entries.Items[1:] {
		var k int
		fmt.Sscanf(e.Str("id"), "e%d", &k)
		if k <= prev {
			t.Fatalf("entries reordered: %s after e%d", e.Str("id"), prev)
		}
		prev = k
	}
	if !newestFirst(entries) {
		t.Fatal("log no longer reads newest-first")
	}
}

// CLIA's own log (48 entries, its last newer than its second): today's
// `--upsert` replacing the first entry keeps it first (it went to position
// 47 before).
func TestUpsertKeepsCLIAsOwnLogNewestFirst(t *testing.T) {
	src := filepath.Join(corpusOrSkip(t), "clia-org__clia-agent-cli/.clia/agents/clia/root@todo3.clia.agency.triad.json")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	root := tempRoot(t)
	agency := ".clia/agents/clia/root@todo3.clia.agency.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agency: string(b)})
	before := readDoc(t, filepath.Join(root, agency)).Get("entries")
	first := before.Items[0]
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock(first.Str("timestamp")[:11] + "23:00:00Z")}
	res, err := Log(context.Background(), opts, LogEntry{Entry: Entry{Slug: "clia", Kind: first.Str("kind"), Note: "wind-down", Signature: "-CL"}, Upsert: true})
	if err != nil || !res[0].Replaced {
		t.Fatalf("upsert: %+v, %v", res, err)
	}
	after := readDoc(t, filepath.Join(root, agency)).Get("entries")
	if len(after.Items) != len(before.Items) || after.Items[0].Str("summary") != "wind-down" {
		t.Fatalf("replacement not first: %d -> %d entries, first %q", len(before.Items), len(after.Items), after.Items[0].Str("summary"))
	}
	for i := 1; i < len(after.Items); i++ {
		if !triad.Equal(after.Items[i], before.Items[i]) {
			t.Fatalf("entry %d moved or changed", i)
		}
	}
}
