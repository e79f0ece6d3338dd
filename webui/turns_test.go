package webui

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// TestTurnsAndHandoffPreview: a session's turns page lists its turns newest
// first a window at a time and shows what the model saw at a turn (the
// compile at the turn's commit, the instructions delivered by then, what
// the tract's prune policy left out); the handoff preview shows what
// `lineage handoff` would compose and writes nothing.
func TestTurnsAndHandoffPreview(t *testing.T) {
	ctx := context.Background()
	f := sessionsFixture(t)
	// The session with the most tool results in its compile.
	all, err := sessions.List(ctx, f.repo, sessions.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var info sessions.Info
	most := 0
	for _, i := range all {
		res, err := f.repo.CompileCold(ctx, i.Tract, tract.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		results := 0
		for _, m := range res.Messages {
			if m.Type == tract.TypeToolResult {
				results++
			}
		}
		if results > most {
			info, most = i, results
		}
	}
	if most == 0 {
		t.Fatal("no session of the fixture has a tool result")
	}
	main := info.Tract
	ts := newTestServer(t, f, Options{Sessions: true, Window: 1})

	list := mustGet(t, ts.URL+"/tract/"+main+"/turns")
	rows := regexp.MustCompile(`<tr data-turn="(\d+)">`).FindAllStringSubmatch(list, -1)
	total := regexp.MustCompile(`(\d+) turns, newest first`).FindStringSubmatch(list)
	if len(rows) != 1 || total == nil {
		t.Fatalf("turns page: %d rows, want the window of 1\n%s", len(rows), list)
	}
	n, _ := strconv.Atoi(total[1])
	if n < 2 || rows[0][1] != strconv.Itoa(n) || !strings.Contains(list, `rel="next" href="/tract/`+main+`/turns?skip=1"`) {
		t.Fatalf("turns page is not the newest window of %d turns: %v\n%s", n, rows, list)
	}
	if older := mustGet(t, ts.URL+"/tract/"+main+"/turns?skip=1"); !strings.Contains(older, fmt.Sprintf(`<tr data-turn="%d">`, n-1)) || !strings.Contains(older, `rel="prev"`) {
		t.Errorf("the older window\n%s", older)
	}

	// Prune every tool result by the tract's policy: the turn and the
	// preview say what it left out.
	if _, err := f.repo.SetConfig(ctx, main, "prune", "tool-results"); err != nil {
		t.Fatal(err)
	}
	at := mustGet(t, ts.URL+fmt.Sprintf("/tract/%s/turns?turn=%d", main, n))
	if !strings.Contains(at, fmt.Sprintf(`<h2 id="turn" data-turn="%d">What the model saw at turn %d</h2>`, n, n)) || !strings.Contains(at, `<table id="tail">`) {
		t.Errorf("turn %d page\n%s", n, at)
	}
	if !strings.Contains(at, `<p id="pruned" data-count="`) {
		t.Errorf("turn %d page does not show the pruned tool results\n%s", n, at)
	}
	for _, bad := range []string{"turn=" + strconv.Itoa(n+1), "turn=x"} {
		if code, _ := get(t, ts.URL+"/tract/"+main+"/turns?"+bad); code != 400 {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
	if code, _ := get(t, ts.URL+"/tract/lineage-sessions/turns"); code != 404 {
		t.Errorf("turns of a tract that is not a session: %d, want 404", code)
	}

	before, err := f.repo.Tracts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	page := mustGet(t, ts.URL+"/tract/"+main+"/handoff?budget=4000")
	p := tract.PrunePolicy{ToolResults: true}
	want, err := handoff.PreviewOf(ctx, handoff.Options{Repo: f.repo, Session: info, Budget: 4000, Prune: &p})
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(page, `<pre class="content" id="handoff-text">`)
	if i < 0 || !strings.Contains(html.UnescapeString(page[i:]), strings.TrimSpace(want.Text)[:min(200, len(strings.TrimSpace(want.Text)))]) {
		t.Errorf("handoff preview lacks the composed text\n%s", page)
	}
	if !strings.Contains(page, fmt.Sprintf(`data-tokens="%d"`, want.Result.Tokens)) || !strings.Contains(page, "<code>"+want.Tract+"</code>") ||
		len(want.Result.Pruned) == 0 || !strings.Contains(page, fmt.Sprintf(`<p id="pruned" data-count="%d">`, len(want.Result.Pruned))) {
		t.Errorf("handoff preview: want %d tokens, tract %s, %d pruned\n%s", want.Result.Tokens, want.Tract, len(want.Result.Pruned), page)
	}
	after, err := f.repo.Tracts(ctx)
	if err != nil || len(after) != len(before) {
		t.Errorf("the preview wrote: %d tracts before, %d after (%v)", len(before), len(after), err)
	}
	if code, _ := get(t, ts.URL+"/tract/"+main+"/handoff?at=nosuch"); code != 404 && code != 400 {
		t.Errorf("handoff at=nosuch: %d", code)
	}
	if g := mustGet(t, ts.URL+"/tract/"+main+"/graph"); !strings.Contains(g, `<a id="turns-link" href="/tract/`+main+`/turns">`) {
		t.Errorf("the session's graph does not link to its turns")
	}
}
