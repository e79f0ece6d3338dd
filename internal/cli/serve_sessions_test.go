package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentlineage/lineage/internal/cli/clienv"
)

// unpackClaude extracts the transcripts the real Claude Code 2.1.332 wrote
// (sessions/testdata/claude.tar.gz) and returns the config dir holding them.
func unpackClaude(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "sessions", "testdata", "claude.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for tr := tar.NewReader(zr); ; {
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
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err == nil {
			err = os.WriteFile(p, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "claude-2.1.332", ".claude")
}

// TestServeSessions: `lineage serve --sessions` serves the sessions store
// the user imported: the first page lists the sessions, and a session's
// graph shows its subagent as a child, its compaction as a summary and
// its rewind as a branch, in a real browser too.
func TestServeSessions(t *testing.T) {
	dir := t.TempDir()
	config := unpackClaude(t)
	store := filepath.Join(dir, "sessions.db")
	var out, errb bytes.Buffer
	e := &clienv.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir,
		LookupEnv: func(k string) (string, bool) {
			if k == "CLAUDE_CONFIG_DIR" {
				return config, true
			}
			return "", false
		}}
	if code := Run(context.Background(), []string{"sessions", "import", "--all", "--store", store}, e); code != 0 {
		t.Fatalf("sessions import: exit %d: %s", code, errb.String())
	}
	base := startServe(t, dir, store, "--sessions")
	main := "claude-11111111-2222-4333-8444-555555555555"
	for path, wants := range map[string][]string{
		"/":                         {`<table id="sessions">`, `<tr data-tract="` + main + `" data-harness="claude">`, `sessions 1–5 of 5`},
		"/tract/" + main + "/graph": {`<dl id="session">`, `class="spawn" href="/tract/claude-agent-a8fe5a0fe191bb630/graph"`, `stands in for`, `class="rewind"`},
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, w := range wants {
			if resp.StatusCode != 200 || !bytes.Contains(body, []byte(w)) {
				t.Errorf("%s (%d) lacks %q", path, resp.StatusCode, w)
			}
		}
	}
	sessionsInBrowser(t, base, main)
}

// sessionsInBrowser follows the session list to a session's graph and its
// rewound line in headless Chromium.
func sessionsInBrowser(t *testing.T, base, main string) {
	ctx, shots, ok := startBrowser(t)
	if !ok {
		return
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		tctx, stop := context.WithTimeout(ctx, 30*time.Second)
		defer stop()
		if err := chromedp.Do(tctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+jsonQuote(sel)+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	step("the session list", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("sessions")))
	if n := count("#sessions tbody tr"); n != 5 {
		t.Errorf("session list: %d rows, want 5", n)
	}
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		save(t, shots, "sessions.png", png)
	}
	step("open "+main, chromedp.Click(chromedp.CSS(`tr[data-tract="`+main+`"] a`)), chromedp.WaitVisible(chromedp.ID("session")))
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		save(t, shots, "session-graph.png", png)
	}
	if count("#commits tr.commit") == 0 || count("a.spawn") == 0 || count(".mark.summary") == 0 || count("a.rewind") == 0 {
		t.Errorf("session graph: %d commits, %d subagent links, %d summary marks, %d rewind branches; want each",
			count("#commits tr.commit"), count("a.spawn"), count(".mark.summary"), count("a.rewind"))
	}
	step("follow the rewind", chromedp.Click(chromedp.CSS("a.rewind")), chromedp.WaitVisible(chromedp.ID("commits")))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "from=rewind-") {
		t.Errorf("after the rewind link: %q %v", loc, err)
	}

	// From the session's graph to its turns, what the model saw at the
	// newest turn, and the handoff preview.
	step("the turns", chromedp.Navigate(base+"/tract/"+main+"/graph"), chromedp.WaitVisible(chromedp.ID("turns-link")),
		chromedp.Click(chromedp.ID("turns-link")), chromedp.WaitVisible(chromedp.ID("turns")))
	if n := count("#turns tbody tr"); n == 0 {
		t.Errorf("turns page: no turns")
	}
	step("the newest turn", chromedp.Click(chromedp.CSS("#turns tbody tr a")), chromedp.WaitVisible(chromedp.ID("turn")))
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		save(t, shots, "session-turn.png", png)
	}
	if count("#tail tbody tr") == 0 || count("script") != 0 {
		t.Errorf("turn view: %d messages, %d scripts", count("#tail tbody tr"), count("script"))
	}
	step("the handoff preview", chromedp.Navigate(base+"/tract/"+main+"/handoff?budget=4000"), chromedp.WaitVisible(chromedp.ID("handoff-text")))
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("handoff-text").textContent`))
	if err != nil || !strings.Contains(text, "user: ") {
		t.Errorf("handoff preview text %q: %v", text, err)
	}
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		save(t, shots, "session-handoff.png", png)
	}
}

func jsonQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
