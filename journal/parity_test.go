package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

func entrySummaries(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, e := range readDoc(t, path).Get("entries").Items {
		out = append(out, e.Str("timestamp")+" "+e.Str("kind")+" "+e.Str("summary"))
	}
	return out
}

// CLIA's `triads agency log --upsert` without --title replaces the entry of
// the same UTC day and kind (the title lineage derives from the summary is
// not a --title), and an upsert keeps a newest-first log newest-first.
func TestUpsertWithoutTitleReplacesTheDaysEntryOfItsKind(t *testing.T) {
	root := tempRoot(t)
	agency := ".clia/agents/s/s@x.agency.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agency: `{
  "entries" : [
    {"timestamp" : "2026-03-02T10:00:00Z", "kind" : "review", "title" : "R", "summary" : "r"},
    {"timestamp" : "2026-03-02T08:00:00Z", "kind" : "journal", "title" : "Morning", "summary" : "morning"},
    {"timestamp" : "2026-03-01T08:00:00Z", "kind" : "journal", "title" : "Yesterday", "summary" : "yesterday"}
  ]
}`})
	ctx := context.Background()
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-02T12:00:00Z")}
	res, err := Log(ctx, opts, LogEntry{Entry: Entry{Slug: "s", Note: "evening", Signature: "-S"}, Upsert: true})
	if err != nil || !res[0].Replaced {
		t.Fatalf("upsert: %+v, %v", res, err)
	}
	got := strings.Join(entrySummaries(t, filepath.Join(root, agency)), "\n")
	want := strings.Join([]string{
		"2026-03-02T12:00:00Z journal evening",
		"2026-03-02T10:00:00Z review r",
		"2026-03-01T08:00:00Z journal yesterday",
	}, "\n")
	if got != want {
		t.Errorf("entries:\n%s\nwant\n%s", got, want)
	}
	// With --title, only an entry of that title matches.
	opts.Now = fixedClock("2026-03-02T13:00:00Z")
	res, err = Log(ctx, opts, LogEntry{Entry: Entry{Slug: "s", Note: "titled", Title: "Other", Signature: "-S"}, Upsert: true})
	if err != nil || res[0].Replaced {
		t.Fatalf("titled upsert: %+v, %v", res, err)
	}
	if n := len(entrySummaries(t, filepath.Join(root, agency))); n != 4 {
		t.Errorf("%d entries after a titled upsert, want 4", n)
	}
}

// `journal --daily --dirs-touched` unions the directories into the agency
// document's extensions["x-dirsTouched"] (as CLIA's JournalWriter does) and
// sets its "updated"; nothing else there changes.
func TestDailyDirsTouchedUnionIntoAgency(t *testing.T) {
	root := tempRoot(t)
	agency := ".clia/agents/s/s@x.agency.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agency: `{
  "updated" : "2026-01-01T00:00:00Z",
  "extensions" : {
    "x-dirsTouched" : [
      "a"
    ]
  },
  "entries" : [

  ]
}
`})
	ctx := context.Background()
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-02T12:00:00Z")}
	res, err := WriteDaily(ctx, opts, Daily{Slug: "s", Highlights: []string{"h"}, DirsTouched: []string{"b", "a", "c"}, Signature: "-S"})
	if err != nil || res.Agency != filepath.Join(root, agency) {
		t.Fatalf("daily: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(filepath.Join(root, agency))
	want := `{
  "updated" : "2026-03-02T12:00:00Z",
  "extensions" : {
    "x-dirsTouched" : [
      "a",
      "b",
      "c"
    ]
  },
  "entries" : [

  ]
}
`
	if string(got) != want {
		t.Errorf("agency after daily:\n%s\nwant\n%s", got, want)
	}
	// The day document records them too.
	day := readDoc(t, res.File)
	if d := day.Get("x-dirsTouched"); d == nil || len(d.Items) != 3 {
		t.Errorf("day document: %s", triad.Canonical(day))
	}
}

// An upsert that replaces an older entry (here by its id) moves it where a
// new entry goes, so a newest-first log stays newest-first.
func TestUpsertKeepsNewestFirst(t *testing.T) {
	root := tempRoot(t)
	agency := ".clia/agents/s/s@x.agency.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agency: `{"entries": [
    {"id": "b", "timestamp": "2026-03-02T10:00:00Z", "kind": "journal", "title": "B", "summary": "b"},
    {"id": "a", "timestamp": "2026-03-01T10:00:00Z", "kind": "journal", "title": "A", "summary": "a"}
  ]}`})
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-03T10:00:00Z")}
	res, err := Log(context.Background(), opts, LogEntry{Entry: Entry{Slug: "s", ID: "a", Note: "a again", Signature: "-S"}, Upsert: true})
	if err != nil || !res[0].Replaced {
		t.Fatalf("upsert: %+v, %v", res, err)
	}
	got := strings.Join(entrySummaries(t, filepath.Join(root, agency)), "\n")
	want := "2026-03-03T10:00:00Z journal a again\n2026-03-02T10:00:00Z journal b"
	if got != want {
		t.Errorf("entries:\n%s\nwant\n%s", got, want)
	}
}

// A mixed-layout agency file (some members "key": value, some "key" :
// value, an inline object) is written back in the one layout lineage
// detects, as docs/agents.md says: the new entry and "updated" change, and
// every other member keeps its keys, order, values and number texts but is
// re-laid out in that layout.
func TestAppendToMixedLayoutRelaysOnlyTheLayout(t *testing.T) {
	root := tempRoot(t)
	agency := ".clia/agents/s/s@x.agency.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agency: `{
  "schemaVersion" : "0.4.0",
  "updated": "2026-01-01T00:00:00Z",
  "entries" : [
    {
      "timestamp" : "2026-01-01T00:00:00Z",
      "summary": "old",
      "tags" : [ ]
    }
  ],
    "extra": {"a": 1.50, "b" : [1,2]}
}
`})
	before := readDoc(t, filepath.Join(root, agency))
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-01T00:00:00Z")}
	res, err := Append(context.Background(), opts, Entry{Slug: "s", Note: "new", Signature: "-S"})
	if err != nil || !res.Written {
		t.Fatalf("append: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(filepath.Join(root, agency))
	after := readDoc(t, filepath.Join(root, agency))
	assertOnlyAppended(t, before, after, after.Get("entries").Items[0])
	if !strings.Contains(string(got), `"summary" : "old"`) || !strings.Contains(string(got), `"a" : 1.50`) || strings.Contains(string(got), `"summary": "old"`) {
		t.Errorf("mixed layout written as\n%s", got)
	}
}
