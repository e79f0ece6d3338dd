package journal

import (
	"context"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

func TestParseContributionAndLink(t *testing.T) {
	// Argument forms from clia-org/clia-agent-cli TriadsCommandGroup
	// (`triads agency log --contrib`, `--link`).
	c, err := ParseContribution("by=codex,type=code,evidence=fixed a, b and c,weight=2.5")
	if err != nil || c != (Contribution{By: "codex", Type: "code", Evidence: "fixed a, b and c", Weight: "2.5"}) {
		t.Fatalf("got %+v, %v", c, err)
	}
	for in, want := range map[string]string{
		"by=a,type=t":                       "evidence= is missing",
		"type=t,evidence=e":                 "by= is missing",
		"by=a,type=t,evidence=e,weight=x":   `weight="x" is not a number`,
		"by=a,type=t,evidence=e,weight=1 2": `is not a number`,
		"oops,by=a":                         `"oops" is not one of`,
	} {
		if _, err := ParseContribution(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
	l, err := ParseLink("https://x/y|doc|The Y")
	if err != nil || l != (Link{Href: "https://x/y", Kind: "doc", Title: "The Y"}) {
		t.Fatalf("got %+v, %v", l, err)
	}
	if _, err := ParseLink("|doc|t"); err == nil || !strings.Contains(err.Error(), "href") {
		t.Errorf("empty href: %v", err)
	}
	if _, err := ParseLink("a|b|c|d"); err == nil {
		t.Error("four parts accepted")
	}
}

func FuzzParseContribution(f *testing.F) {
	for _, s := range []string{"by=a,type=t,evidence=e", "by=a,type=t,evidence=e,weight=1.50", "x", "by==,type=,", "evidence=a,,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseContribution(s)
		if err != nil {
			return
		}
		if strings.TrimSpace(c.By) == "" || strings.TrimSpace(c.Type) == "" || strings.TrimSpace(c.Evidence) == "" {
			t.Fatalf("accepted %q with an empty field: %+v", s, c)
		}
	})
}

func FuzzParseLink(f *testing.F) {
	for _, s := range []string{"https://x", "h|k|t", "|", "a|b|c|d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLink(s)
		if err == nil && l.Href == "" {
			t.Fatalf("accepted %q without an href", s)
		}
	})
}

// Rich entry golden: the shape CLIA's AgencyLogCore.makeTypedEntry writes
// (details after the --detail lines, tags + participants, links, grouped
// contributions), with lineage's id, signature and source.
func TestLogRichEntryAndUpsert(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>"})
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-01-02T09:00:00Z")}
	e := LogEntry{Entry: Entry{Note: "Shipped", Title: "Release", Kind: "log", Tags: []string{"rel"}, Signature: "-S", ID: "r1"},
		Slugs: []string{"a", "b"}, Details: []string{"line 1", "body"}, Participants: []string{"x"},
		Links:         []Link{{Href: "https://h", Kind: "pr", Title: "PR"}},
		Contributions: []Contribution{{By: "x", Type: "code", Evidence: "e1", Weight: "2"}, {By: "y", Type: "doc", Evidence: "e2"}, {By: "x", Type: "test", Evidence: "e3"}}}
	res, err := Log(context.Background(), opts, e)
	if err != nil || len(res) != 2 || !res[0].Written || !res[1].Written {
		t.Fatalf("%+v %v", res, err)
	}
	got, _ := os.ReadFile(res[1].File)
	want := `{
  "schemaVersion": "0.4.0",
  "slug": "b",
  "title": "Agency log: b",
  "updated": "2026-01-02T09:00:00Z",
  "entries": [
    {
      "id": "r1",
      "timestamp": "2026-01-02T09:00:00Z",
      "kind": "log",
      "title": "Release",
      "summary": "Shipped",
      "details": [
        "line 1",
        "body"
      ],
      "tags": [
        "rel",
        "x"
      ],
      "links": [
        {
          "title": "PR",
          "url": "https://h",
          "kind": "pr"
        }
      ],
      "signature": "-S",
      "source": ".",
      "contributions": [
        {
          "by": "x",
          "types": [
            {
              "type": "code",
              "weight": 2,
              "evidence": "e1"
            },
            {
              "type": "test",
              "weight": 1,
              "evidence": "e3"
            }
          ]
        },
        {
          "by": "y",
          "types": [
            {
              "type": "doc",
              "weight": 1,
              "evidence": "e2"
            }
          ]
        }
      ]
    }
  ]
}
`
	if string(got) != want {
		t.Fatalf("got\n%s", got)
	}
	// Same id again: skipped; with --upsert: replaced in place.
	if res, _ := Log(context.Background(), opts, e); res[0].Written {
		t.Fatal("an existing id was written again")
	}
	e.Note, e.Upsert = "Shipped v2", true
	res, err = Log(context.Background(), opts, e)
	if err != nil || !res[0].Replaced {
		t.Fatalf("%+v %v", res, err)
	}
	doc := readDoc(t, res[0].File)
	if n := len(doc.Get("entries").Items); n != 1 || doc.Get("entries").Items[0].Str("summary") != "Shipped v2" {
		t.Fatalf("upsert left %d entries", n)
	}
	// CLIA's upsert match without an id: same UTC day and title; the
	// replaced entry keeps its id.
	opts.Now = fixedClock("2026-01-02T18:00:00Z")
	res, err = Log(context.Background(), opts, LogEntry{Entry: Entry{Slug: "a", Note: "evening", Title: "Release", Signature: "-S"}, Upsert: true})
	if err != nil || !res[0].Replaced || res[0].Entry.Str("id") != "r1" {
		t.Fatalf("%+v %v", res, err)
	}
	// NoCreate: an agent without an agency document is skipped.
	res, err = Log(context.Background(), opts, LogEntry{Entry: Entry{Slug: "c", Note: "n", Signature: "-S"}, NoCreate: true})
	if err != nil || !res[0].Missing {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".clia/agents/c")); err == nil {
		t.Error("NoCreate created the context")
	}
}

// Golden from CLIA's own day document (corpus
// clia-org__clia-agent-cli/.clia/agents/clia/journal/2025-09-29.json, shape
// in .clia/schemas/specs/clia-agents-journal.v1.md): a second write that day
// merges — new items appended, "timestamp" moved, every other byte kept.
func TestWriteDailyMergesCLIADay(t *testing.T) {
	corpus := corpusRoot(t)
	orig, err := os.ReadFile(filepath.Join(corpus, "clia-org__clia-agent-cli/.clia/agents/clia/journal/2025-09-29.json"))
	if err != nil {
		t.Fatal(err)
	}
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/clia/journal/2025-09-29.json": string(orig)})
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2025-09-29T12:00:00Z")}
	d := Daily{Slug: "clia", Highlights: []string{"CLIA appends one shared array; Dot/Cadence expose shared commands consistently.", "Merged days"}, Signature: "-X"}
	res, err := WriteDaily(context.Background(), opts, d)
	if err != nil || !res.Written || res.Created {
		t.Fatalf("%+v %v", res, err)
	}
	got, _ := os.ReadFile(res.File)
	want := strings.Replace(string(orig), `consistently."
  ],`, `consistently.",
    "Merged days"
  ],`, 1)
	want = strings.Replace(want, `"timestamp" : "2025-09-29T07:31:46Z"`, `"timestamp" : "2025-09-29T12:00:00Z"`, 1)
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// Nothing new: nothing written.
	if res, err := WriteDaily(context.Background(), opts, d); err != nil || res.Written {
		t.Fatalf("%+v %v", res, err)
	}
	// A new day: CLIA's shape, keys sorted in its " : " layout.
	opts.Now = fixedClock("2025-09-30T08:00:00Z")
	res, err = WriteDaily(context.Background(), opts, Daily{Slug: "clia", AgentVersion: "1.2", Focus: []string{"f"}, Signature: "-CL", DirsTouched: []string{"src/"}})
	if err != nil || !res.Created {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(res.File)
	if string(got) != `{
  "agentVersion" : "1.2",
  "date" : "2025-09-30",
  "focus" : [
    "f"
  ],
  "highlights" : [],
  "nextSteps" : [],
  "signature" : "-CL",
  "timestamp" : "2025-09-30T08:00:00Z",
  "x-dirsTouched" : [
    "src/"
  ]
}
` {
		t.Fatalf("got\n%s", got)
	}
}

// Golden from .clia/schemas/specs/agents-roster.v1.md: the row format, the
// insert directly under the separator, the transitional row removed, the
// minimal table for a missing file; nothing else in the file changes.
func TestUpdateRosterFollowsSpec(t *testing.T) {
	root := tempRoot(t)
	r := RosterRow{Title: "Carrie Credential", Slug: "carrie", Summary: "Keeps\nsecrets | safe"}
	res, err := UpdateRoster(context.Background(), root, r, false)
	if err != nil || !res.Created {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(res.File)
	if string(got) != "# Agents\n\n| Agent | Summary | Path |\n| ----- | ------- | -------- |\n| Carrie Credential | Keeps secrets \\| safe | `.clia/agents/carrie/` |\n" {
		t.Fatalf("got %q", got)
	}
	before := "Intro text.\n\n| Agent | Summary | Path |\n| ----- | ------- | -------- |\n| Old | x | `.clia/agents/old/` |\n| Carrie _(commissioned via CLI)_ | | `.clia/agents/carrie/` |\n\nOutro, untouched.  \n"
	os.WriteFile(res.File, []byte(before), 0o600)
	os.Chmod(res.File, 0o600)
	if _, err := UpdateRoster(context.Background(), root, r, false); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(res.File)
	want := "Intro text.\n\n| Agent | Summary | Path |\n| ----- | ------- | -------- |\n| Carrie Credential | Keeps secrets \\| safe | `.clia/agents/carrie/` |\n| Old | x | `.clia/agents/old/` |\n\nOutro, untouched.  \n"
	if string(got) != want {
		t.Fatalf("got %q", got)
	}
	platformtest.Perm(t, res.File, 0o600)
	r.Summary = "another summary"
	if res, err := UpdateRoster(context.Background(), root, r, false); err != nil || res.Written {
		t.Fatalf("second update wrote: %+v %v", res, err)
	}
}

// The commission spec (.clia/schemas/specs/clia-agents-commission.v1.md):
// three triads under <agents root>/<slug>/, the agency log opens with
// "Commissioned — <title>" tagged commission, routing, journalSignature in
// extensions; a second run changes nothing.
func TestCommissionScaffoldsIdempotently(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/root/root@ws.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"root"}`})
	opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-01T10:00:00Z")}
	c := Commission{Slug: "carrie", Title: "Carrie Credential", Role: "Secrets steward", Signature: "-CC"}
	dry, err := Commissioned(context.Background(), opts, Commission{Slug: c.Slug, Title: c.Title, DryRun: true})
	if err != nil || len(dry.Files) != 3 || dry.Files[0].State != "would create" {
		t.Fatalf("%+v %v", dry, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".clia/agents/carrie")); err == nil {
		t.Fatal("dry run wrote")
	}
	res, err := Commissioned(context.Background(), opts, c)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(root)
	for i, k := range []string{"agent", "agenda", "agency"} {
		want := filepath.Join(root, ".clia/agents/carrie/carrie@"+base+"."+k+".triad.json")
		if res.Files[i].File != want || res.Files[i].State != "created" {
			t.Errorf("%s: %+v", k, res.Files[i])
		}
	}
	agent := readDoc(t, res.Files[0].File)
	if agent.Get("extensions").Str("journalSignature") != "-CC" || agent.Str("role") != "Secrets steward" ||
		agent.Get("inherits").Items[0].Text != "../root/root@ws.agent.triad.json" {
		t.Errorf("agent: %s", res.Files[0].Content)
	}
	entry := readDoc(t, res.Files[2].File).Get("entries").Items[0]
	if entry.Str("title") != "Commissioned — Carrie Credential" || entry.Get("tags").Items[1].Text != "routing" || entry.Str("signature") != "-CC" {
		t.Errorf("agency entry: %s", res.Files[2].Content)
	}
	rep, err := agents.Doctor(opts.Agents, "carrie")
	if err != nil || rep.Status != "ok" {
		t.Errorf("doctor on the new agent: %+v %v", rep, err)
	}
	snap := snapshot(t, root)
	opts.Now = fixedClock("2026-03-02T10:00:00Z")
	again, err := Commissioned(context.Background(), opts, c)
	if err != nil || again.Files[0].State != "exists" || again.Roster.Written {
		t.Fatalf("%+v %v", again, err)
	}
	if diff := diffSnapshots(snap, snapshot(t, root)); diff != "" {
		t.Errorf("second commission changed: %s", diff)
	}
}
