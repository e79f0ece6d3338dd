package webui

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// claudeFixture unpacks the transcripts the real Claude Code 2.1.332 wrote
// (sessions/testdata) and returns its config dir.
func claudeFixture(t testing.TB) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "sessions", "testdata", "claude.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(h.Name, "claude-2.1.332/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "claude-2.1.332", ".claude")
}

// sessionsFixture imports the Claude fixture: a session with a subagent, a
// compaction and a resume at an earlier turn (a branch), a fork of it, an
// auto-compacted session and one without compaction.
func sessionsFixture(t testing.TB) fixture {
	t.Helper()
	config := claudeFixture(t)
	srcs, err := sessions.Discover([]sessions.Harness{sessions.Claude}, sessions.Env{Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return ""
	}}, "/repo", true)
	if err != nil {
		t.Fatal(err)
	}
	repo := tract.New(sqliteStore(t), tract.Options{Now: func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }})
	if _, err := (&sessions.Importer{Repo: repo}).Import(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	return fixture{repo: repo}
}

// TestSessionsPage: the session list shows harness, project, time, title
// and tokens, newest first, a window at a time; a session's graph shows its
// subagent as a child, its compaction as a summary and its rewind as a
// branch; the fork links to its origin.
func TestSessionsPage(t *testing.T) {
	f := sessionsFixture(t)
	list, err := sessions.List(context.Background(), f.repo, sessions.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 4 {
		t.Fatalf("fixture holds %d sessions", len(list))
	}
	ts := newTestServer(t, f, Options{Sessions: true, Window: 2})
	body := mustGet(t, ts.URL+"/")
	if got := count(body, `<tr data-tract="`); got != 2 {
		t.Errorf("first page: %d rows, want the window of 2\n%s", got, body)
	}
	// Newest first: the page's rows are the list's first two, in order.
	if i, j := strings.Index(body, `data-tract="`+list[0].Tract+`"`), strings.Index(body, `data-tract="`+list[1].Tract+`"`); i < 0 || j < i {
		t.Errorf("first page does not start with %s, %s\n%s", list[0].Tract, list[1].Tract, body)
	}
	for _, want := range []string{"<td>claude</td>", "<td>&lt;repo&gt;</td>", fmt.Sprintf(`<td class="num">%d</td>`, list[0].Tokens),
		`<a rel="next" href="/sessions?skip=2">older →</a>`, fmt.Sprintf("of %d", len(list))} {
		if !strings.Contains(body, want) {
			t.Errorf("first page lacks %q\n%s", want, body)
		}
	}
	last := mustGet(t, ts.URL+fmt.Sprintf("/sessions?skip=%d", len(list)-1))
	if count(last, `<tr data-tract="`) != 1 || !strings.Contains(last, `rel="prev"`) || strings.Contains(last, `rel="next"`) {
		t.Errorf("last page\n%s", last)
	}
	if code, _ := get(t, ts.URL+"/sessions?harness=cobol"); code != 400 {
		t.Errorf("harness=cobol: %d, want 400", code)
	}
	if b := mustGet(t, ts.URL+"/sessions?harness=codex"); !strings.Contains(b, "No sessions in this store") {
		t.Errorf("harness=codex lists claude sessions\n%s", b)
	}
	if b := mustGet(t, ts.URL+"/tracts"); !strings.Contains(b, `<tr data-tract="lineage-sessions">`) {
		t.Errorf("/tracts does not list every tract")
	}

	main := "claude-11111111-2222-4333-8444-555555555555"
	g := mustGet(t, ts.URL+"/tract/"+main+"/graph?n=500")
	for _, want := range []string{`<dl id="session">`, `<dd>claude 11111111-2222-4333-8444-555555555555</dd>`,
		`<dt>project</dt><dd>&lt;repo&gt;</dd>`, `subagents and forks: `, `<a href="/tract/claude-agent-a8fe5a0fe191bb630/graph">`,
		`<span class="mark spawn">spawned <a class="spawn" href="/tract/claude-agent-a8fe5a0fe191bb630/graph">`,
		`<span class="mark summary">stands in for`, `class="rewind" href="/tract/` + main + `/graph?from=rewind-`} {
		if !strings.Contains(g, want) {
			t.Errorf("%s graph lacks %q", main, want)
		}
	}
	fork := mustGet(t, ts.URL+"/tract/claude-94feb9dd-f705-47b6-a9be-b00514fb9483/graph")
	if !strings.Contains(fork, `<a class="origin" href="/tract/`+main+`/graph">`) {
		t.Errorf("the fork does not link to its origin\n%s", fork)
	}
	// A branch's page is its own line: the rewound turn's log.
	i := strings.Index(g, `class="rewind" href="`)
	href := g[i+len(`class="rewind" href="`):]
	href = strings.ReplaceAll(href[:strings.Index(href, `"`)], "&amp;", "&")
	if b := mustGet(t, ts.URL+href); !strings.Contains(b, `<table id="commits">`) {
		t.Errorf("%s\n%s", href, b)
	}
}

// TestSessionsPageOnAPlainStore: a store without sessions says how to get
// them; the first page stays the tract list.
func TestSessionsPageOnAPlainStore(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ts := newTestServer(t, f, Options{})
	if b := mustGet(t, ts.URL+"/sessions"); !strings.Contains(b, "No sessions in this store: <code>lineage sessions import</code>") {
		t.Errorf("/sessions on a plain store\n%s", b)
	}
	if b := mustGet(t, ts.URL+"/"); !strings.Contains(b, `<table id="tracts">`) {
		t.Errorf("/ is not the tract list")
	}
	if b := mustGet(t, ts.URL+"/tract/main/graph"); strings.Contains(b, `id="session"`) {
		t.Errorf("a plain tract shows a session header")
	}
}
