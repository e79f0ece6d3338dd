package agents_test

// The agenda view derives its rules from CLIA's own aggregate command,
// clia-org/clia-agent-cli sources/core/clia-agent-core-cli-commands/
// TriadsCommandGroup.swift (AggregateCommand.aggregateAgenda: "next"
// section = current, h0-daily / h1-weekly / h2-monthly|h2-quarter horizons
// matched by slug or title word, milestones not "done" due within 7 or 30
// days, backlog strings or objects), its flag reference
// docc/clia-agent.docc/core/shared-agent-commands.md ("Triads Aggregate
// (Agenda)"), and the agenda schema .clia/schemas/triads/
// triads.agenda.schema.json (Milestone.due/status, BacklogItem, Horizon
// key/label).

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

// rootless replaces root in out with ROOT, both as written and as escaped in
// JSON strings, and on Windows turns the separators that follow into "/", so
// outputs of trees under different temporary roots compare equal and the
// expected paths read the same on every OS.
func rootless(out, root string) string {
	q, _ := json.Marshal(root)
	out = strings.ReplaceAll(out, string(q[1:len(q)-1]), "ROOT")
	out = strings.ReplaceAll(out, root, "ROOT")
	if filepath.Separator == '\\' {
		out = strings.ReplaceAll(strings.ReplaceAll(out, `\\`, "/"), `\`, "/")
	}
	return out
}

func writeTree(t *testing.T, root string, files map[string]string, names []string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if n == ".git" {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func collect(t *testing.T, opts agents.Options, ao agents.AgendaOptions) *agents.AgendaView {
	t.Helper()
	v, err := agents.CollectAgenda(opts, ao)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// windowTitles lists, per window, the milestone titles (with "!" for
// overdue) of the only agent.
func windowTitles(v *agents.AgendaView, w string) []string {
	var out []string
	for i := range v.Agents {
		_, ms := v.Agents[i].Window(w, v.Options.Now)
		for _, m := range ms {
			s := m.Title
			if m.Overdue {
				s += "!"
			}
			out = append(out, s)
		}
	}
	return out
}

func TestAgendaCalendarWindows(t *testing.T) {
	root := t.TempDir()
	doc := `{"schemaVersion":"0.4.0","slug":"a","title":"A","status":"active","milestones":[
	 {"id":"m31","title":"in 31 days","due":"2026-02-01T00:00:00Z"},
	 {"id":"m30","title":"in 30 days","due":"2026-01-31"},
	 {"id":"m8","title":"in 8 days","due":"2026-01-09T23:59:59Z"},
	 {"id":"m7","title":"in 7 days","due":"2026-01-08T00:00:00Z"},
	 {"id":"m0","title":"today","due":"2026-01-01T23:00:00Z"},
	 {"id":"late","title":"late","due":"2025-12-31T23:59:59Z","status":"at-risk"},
	 {"id":"done","title":"done","due":"2026-01-01","status":"Done"},
	 {"id":"completed","title":"completed","due":"2026-01-01","status":"completed"},
	 {"id":"dropped","title":"dropped","due":"2026-01-01","status":"dropped"},
	 {"id":"nodate","title":"undated"},
	 {"id":"bad","title":"bad date","due":"soon"}]}`
	writeTree(t, root, map[string]string{".git": "", ".clia/agents/a/a@ws.agenda.triad.json": doc},
		[]string{".git", ".clia/agents/a/a@ws.agenda.triad.json"})
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	v := collect(t, agents.Options{Path: root}, agents.AgendaOptions{Calendar: "ALL", Now: now})
	if v.Options.Calendar != agents.CalendarAll {
		t.Errorf("calendar %q not normalised", v.Options.Calendar)
	}
	for w, want := range map[string][]string{
		agents.CalendarDay:   {"late!", "today"},
		agents.CalendarWeek:  {"late!", "today", "in 7 days"},
		agents.CalendarMonth: {"late!", "today", "in 7 days", "in 8 days", "in 30 days"},
	} {
		if got := windowTitles(v, w); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", w, got, want)
		}
	}
	// The plain view lists every milestone, dated ones by due date first.
	var plain []string
	for _, m := range v.Agents[0].Milestones {
		plain = append(plain, m.Title)
	}
	want := []string{"late", "today", "done", "completed", "dropped", "in 7 days", "in 8 days", "in 30 days", "in 31 days", "undated", "bad date"}
	if !slices.Equal(plain, want) {
		t.Errorf("plain order %q, want %q", plain, want)
	}
	if _, err := agents.CollectAgenda(agents.Options{Path: root}, agents.AgendaOptions{Calendar: "year"}); err == nil || !strings.Contains(err.Error(), `calendar: want day, week, month or all, got "year"`) {
		t.Errorf("bad calendar: %v", err)
	}
}

// Horizons match by slug or key, or by a word of title or label; items may
// be strings or {"title"} objects (tau's), and the "next" sections are the
// current items.
func TestAgendaHorizonsAndCurrent(t *testing.T) {
	root := t.TempDir()
	doc := `{"schemaVersion":"0.4.0","slug":"a","title":"A","status":"draft",
	 "sections":[{"slug":"next","items":["n1",{"title":"n2"}]},{"slug":"later","items":["l"]},{"slug":"next","items":["n3"]}],
	 "horizons":[{"slug":"h0-daily","items":[{"title":"d1","notes":[]}]},{"title":"H1 — Weekly","items":["w1"]},
	  {"key":"h2-quarter","items":["q1"]},{"label":"Monthly goals","items":["m1"]},{"slug":"near","items":["x"]}],
	 "backlog":["plain",{"slug":"s","title":"obj","priority":"p1"},7]}`
	writeTree(t, root, map[string]string{".git": "", ".clia/agents/a/a.agenda.triad.json": doc},
		[]string{".git", ".clia/agents/a/a.agenda.triad.json"})
	v := collect(t, agents.Options{Path: root}, agents.AgendaOptions{})
	a := v.Agents[0]
	for name, c := range map[string][2][]string{
		"current": {a.Current, {"n1", "n2", "n3"}},
		"daily":   {a.Daily, {"d1"}},
		"weekly":  {a.Weekly, {"w1"}},
		"monthly": {a.Monthly, {"q1", "m1"}},
	} {
		if !slices.Equal(c[0], c[1]) {
			t.Errorf("%s: %q, want %q", name, c[0], c[1])
		}
	}
	got := string(triad.Canonical(triad.NewArray(a.Backlog...)))
	if want := "[\n  {\n    \"title\": \"plain\"\n  },\n  {\n    \"priority\": \"p1\",\n    \"slug\": \"s\",\n    \"title\": \"obj\"\n  }\n]\n"; got != want {
		t.Errorf("backlog %s", got)
	}
	items, _ := a.Window(agents.CalendarDay, time.Now())
	if !slices.Equal(items, []string{"n1", "n2", "n3", "d1"}) {
		t.Errorf("day items %q", items)
	}
}

func TestAgendaOutputIndependentOfCreationOrder(t *testing.T) {
	files := map[string]string{
		".git":                                        "",
		".gitmodules":                                 "[submodule \"s\"]\n\tpath = libs/s\n",
		".clia/agents/b/b@ws.agenda.triad.json":       `{"schemaVersion":"0.4.0","status":"active","milestones":[{"id":"x","title":"X","due":"2026-01-03"},{"id":"w","title":"W","due":"2026-01-02"}],"backlog":["b1","b2"]}`,
		".clia/agents/b/z@ws.agenda.triad.json":       `{"schemaVersion":"0.4.0","backlog":["loser"]}`,
		".clia/agents/a/a@ws.agenda.triad.json":       `{"schemaVersion":"0.4.0","status":"draft","sections":[{"slug":"next","items":["a1"]}]}`,
		".clia/agents/a/a@ws.agent.triad.json":        `{"schemaVersion":"0.4.0"}`,
		".clia/agents/c/c@ws.agent.triad.json":        `{"schemaVersion":"0.4.0"}`,
		"libs/s/.git":                                 "gitdir: x",
		"libs/s/.clia/agents/b/b@s.agenda.triad.json": `{"schemaVersion":"0.4.0","milestones":[{"id":"v","title":"V","due":"2026-01-01"}],"backlog":["s1"]}`,
		"libs/s/.clia/agents/a/a@s.agent.triad.json":  `{"schemaVersion":"0.4.0"}`,
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var first []string
	for round := 0; round < 4; round++ {
		rand.New(rand.NewSource(int64(round))).Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		root := t.TempDir()
		writeTree(t, root, files, names)
		var outs []string
		for _, cal := range []string{"", agents.CalendarAll} {
			v := collect(t, agents.Options{Path: filepath.Join(root, "libs/s")}, agents.AgendaOptions{Calendar: cal, Now: now})
			outs = append(outs, rootless(string(triad.Canonical(v.Value())), root))
		}
		if round == 0 {
			first = outs
			continue
		}
		for i := range outs {
			if outs[i] != first[i] {
				t.Fatalf("round %d output %d differs:\n%s\nvs\n%s", round, i, outs[i], first[i])
			}
		}
	}
	// a (root only: the submodule's a has no agenda), then b at the root and
	// b in the submodule, whose merged agenda holds both layers.
	var paths []string
	for _, line := range strings.Split(first[0], "\n") {
		if strings.Contains(line, `"path"`) {
			paths = append(paths, strings.TrimSpace(line))
		}
	}
	want := []string{`"path": "ROOT/.clia/agents/a/a@ws.agenda.triad.json",`, `"path": "ROOT/.clia/agents/b/b@ws.agenda.triad.json",`,
		`"path": "ROOT/libs/s/.clia/agents/b/b@s.agenda.triad.json",`}
	if !slices.Equal(paths, want) {
		t.Errorf("blocks %q, want %q", paths, want)
	}
	if strings.Contains(first[0], "loser") || !strings.Contains(first[0], `"s1"`) {
		t.Errorf("selection or merge wrong:\n%s", first[0])
	}
	if i, j := strings.Index(first[0], `"W"`), strings.Index(first[0], `"X"`); i < 0 || j < i {
		t.Errorf("milestones not by due date:\n%s", first[0])
	}
}

// Over the whole corpus: one block per agent home with its own agenda
// document, every item of that document in the block, and the block's
// counts equal to the home's merged agenda (agents profile --kind agenda).
func TestAgendaCorpus(t *testing.T) {
	root := agentstest.CorpusDir(t)
	blocks, items := 0, 0
	check := func(label string, opts agents.Options) {
		v := collect(t, opts, agents.AgendaOptions{})
		homes, err := agents.FindAll(opts)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, h := range homes {
			o := opts
			o.Path = h.Domain
			ch, err := agents.Resolve(o, h.Slug)
			if err != nil {
				t.Fatal(err)
			}
			own := ""
			for _, c := range ch.Contexts {
				if c.Domain == h.Domain && c.Files.Agenda != "" {
					own = c.Files.Agenda
				}
			}
			if own == "" {
				continue
			}
			i := slices.IndexFunc(v.Agents, func(a agents.AgentAgenda) bool { return a.Path == own })
			if b, err := os.ReadFile(own); err != nil {
				t.Fatal(err)
			} else if _, err := triad.Decode(own, b); err != nil {
				if i >= 0 {
					t.Errorf("%s: %s does not decode but is listed", label, own)
				}
				continue
			}
			want++
			if i < 0 {
				t.Errorf("%s: %s (%s) missing from the agenda", label, h.Slug, own)
				continue
			}
			a := v.Agents[i]
			merged := ch.Profile(triad.Agenda).Merged
			if got, n := len(a.Milestones), arrayLen(merged, "milestones"); got != n {
				t.Errorf("%s %s: %d milestones, merged agenda has %d", label, own, got, n)
			}
			if got, n := len(a.Backlog), arrayLen(merged, "backlog"); got != n {
				t.Errorf("%s %s: %d backlog items, merged agenda has %d", label, own, got, n)
			}
			if label == "nested" && h.Slug == "tau" && len(a.Milestones) != 42 {
				t.Errorf("nested tau: %d milestones, want all 42", len(a.Milestones))
			}
			items += len(a.Milestones) + len(a.Backlog) + len(a.Current)
			checkOwnItems(t, own, a)
		}
		if len(v.Agents) != want {
			t.Errorf("%s: %d blocks, %d homes with an agenda", label, len(v.Agents), want)
		}
		if !slices.IsSortedFunc(v.Agents, func(x, y agents.AgentAgenda) int {
			return strings.Compare(x.Slug+"\x00"+x.Path, y.Slug+"\x00"+y.Path)
		}) {
			t.Errorf("%s: blocks not sorted by slug, path", label)
		}
		blocks += want
	}
	for _, folder := range agentstest.Folders(t) {
		check(folder, agents.Options{Path: filepath.Join(root, folder), AgentsRoots: corpusRoots})
	}
	nested, _ := agentstest.Nested(t)
	check("nested", agents.Options{Path: nested, AgentsRoots: corpusRoots})
	if blocks < 30 || items < 200 {
		t.Errorf("only %d blocks and %d items: the corpus has more", blocks, items)
	}
}

func arrayLen(v *triad.Value, key string) int {
	n := 0
	if a := v.Get(key); a != nil {
		for _, it := range a.Items {
			if it.Kind == triad.String || it.Kind == triad.Object {
				n++
			}
		}
	}
	return n
}

// checkOwnItems finds every milestone, backlog item and "next" item of the
// home's own file in its block.
func checkOwnItems(t *testing.T, file string, a agents.AgentAgenda) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := triad.Decode(file, b)
	if err != nil {
		t.Fatal(err)
	}
	var ms, bl []string
	for _, m := range a.Milestones {
		ms = append(ms, string(triad.Canonical(m.Value)))
	}
	for _, x := range a.Backlog {
		bl = append(bl, x.Str("title"))
	}
	if m := doc.Get("milestones"); m != nil {
		for _, it := range m.Items {
			if !slices.Contains(ms, string(triad.Canonical(it))) && !slices.ContainsFunc(a.Milestones, func(x agents.Milestone) bool { return x.Title == it.Str("title") }) {
				t.Errorf("%s: milestone %s not in the agenda", file, it.Str("title"))
			}
		}
	}
	if m := doc.Get("backlog"); m != nil {
		for _, it := range m.Items {
			title := it.Str("title")
			if it.Kind == triad.String {
				title = it.Text
			}
			if !slices.Contains(bl, title) {
				t.Errorf("%s: backlog item %q not in the agenda", file, title)
			}
		}
	}
	if s := doc.Get("sections"); s != nil {
		for _, sec := range s.Items {
			if sec.Str("slug") != "next" {
				continue
			}
			for _, it := range sec.Get("items").Items {
				if it.Kind == triad.String && !slices.Contains(a.Current, it.Text) {
					t.Errorf("%s: current item %q not in the agenda", file, it.Text)
				}
			}
		}
	}
}

// BenchmarkAgendaNested lists the calendar of every agent of the nested
// corpus workspace (9 agendas, tau's with 42 milestones).
func BenchmarkAgendaNested(b *testing.B) {
	root, _ := agentstest.Nested(b)
	opts := agents.Options{Path: root, AgentsRoots: corpusRoots}
	ao := agents.AgendaOptions{Calendar: agents.CalendarAll, Now: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)}
	for b.Loop() {
		v, err := agents.CollectAgenda(opts, ao)
		if err != nil || len(v.Agents) == 0 {
			b.Fatal(err)
		}
		_ = triad.Canonical(v.Value())
	}
}
