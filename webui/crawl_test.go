package webui

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// TestCrawlNeverFails follows every link of every page of the fixture (a
// varied store: spawns, merges by reference, a summary, a skipped commit,
// a tag, a budget), and every compile a page's form can ask for, and
// checks that no valid request answers 5xx.
func TestCrawlNeverFails(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ts := newTestServer(t, f, Options{Window: 3})
	href := regexp.MustCompile(`href="([^"]+)"`)
	seen := map[string]bool{}
	queue := []string{"/", "/instructions", "/tract/main/find?q=message&all=1", "/tract/main/diff?a=v1~3&b=v1"}
	for _, tr := range []string{"main", "kid"} {
		for _, fm := range []wire.Format{"", wire.FormatOpenAI, wire.FormatOpenAIRequest, wire.FormatAnthropic, wire.FormatText} {
			for _, q := range []string{"", "&budget=1", "&budget=40", "&budget=100000", "&at=v1", "&at=HEAD~2", "&at=" + string(f.merge), "&at=" + string(f.skipped)} {
				queue = append(queue, "/tract/"+tr+"/compile?format="+string(fm)+q)
			}
		}
	}
	for len(queue) > 0 && len(seen) < 2000 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		code, body := get(t, ts.URL+p)
		if code >= 500 {
			t.Errorf("GET %s: %d\n%s", p, code, body[strings.Index(body, "<main>"):])
			continue
		}
		if code != http.StatusOK && !strings.HasPrefix(p, "/tract/main/compile") && !strings.HasPrefix(p, "/tract/kid/compile") {
			t.Errorf("GET %s (a link a page gave): %d\n%.400s", p, code, body)
		}
		for _, m := range href.FindAllStringSubmatch(body, -1) {
			u, err := url.Parse(html.UnescapeString(m[1]))
			if err != nil || u.IsAbs() || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "/static/") {
				continue
			}
			queue = append(queue, u.RequestURI())
		}
	}
	if code, body := get(t, ts.URL+"/tract/main/compile?budget=1"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "budget of 1 tokens is too small") {
		t.Errorf("a budget the pinned messages exceed: %d, want 422 saying so", code)
	}
	if len(seen) < 50 {
		t.Errorf("crawled only %d pages", len(seen))
	}
	t.Logf("crawled %d pages", len(seen))
}

// TestInstructionsDirStaysInTheTree: dir may not reach out of the served
// tree by "..", an absolute path or a symbolic link (to a directory whose
// AGENTS.md would then be shown); a directory inside it, through a link
// that stays inside, is shown.
func TestInstructionsDirStaysInTheTree(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	served, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "AGENTS.md"), []byte("outside secret\n"), 0o644))
	must(os.Mkdir(filepath.Join(served, ".git"), 0o755))
	must(os.MkdirAll(filepath.Join(served, "in", "deep"), 0o755))
	must(os.WriteFile(filepath.Join(served, "in", "deep", "AGENTS.md"), []byte("inside words\n"), 0o644))
	if err := os.Symlink(outside, filepath.Join(served, "out")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	must(os.Symlink(filepath.Join("in", "deep"), filepath.Join(served, "near")))
	must(os.WriteFile(filepath.Join(served, "file"), nil, 0o644))
	ts := newTestServer(t, f, Options{Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: served}})
	for dir, want := range map[string]int{
		"out": 400, "out/": 400, "near/../out": 400, "../" + filepath.Base(outside): 400, outside: 400,
		"missing": 400, "file": 400, "in/deep": 200, "near": 200, ".": 200,
	} {
		code, body := get(t, ts.URL+"/instructions?dir="+url.QueryEscape(dir))
		if code != want {
			t.Errorf("dir=%s: %d, want %d", dir, code, want)
		}
		if strings.Contains(body, "outside secret") || want == 200 && strings.Contains(body, outside) {
			t.Errorf("dir=%s showed the tree outside", dir)
		}
		if want == 200 && dir != "." && !strings.Contains(body, filepath.Join("in", "deep", "AGENTS.md")) {
			t.Errorf("dir=%s: the chain lacks in/deep/AGENTS.md", dir)
		}
	}
}

// TestConcurrentPagesBounded sends 40 requests at once to a server that
// renders 3 pages at a time: never more than 3 are rendered together
// (what bounds the server's memory), and every request is answered.
func TestConcurrentPagesBounded(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	srv, err := New(Options{Repo: f.repo, MaxConcurrent: 3, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	inside, most := 0, 0
	srv.rendering = func() {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond) // hold the turn so others queue
		mu.Lock()
		inside--
		mu.Unlock()
	}
	ts := httptest.NewServer(srv.Handler(""))
	defer ts.Close()
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			if code, _ := get(t, ts.URL+"/tract/main/compile"); code != http.StatusOK {
				t.Errorf("status %d", code)
			}
		})
	}
	wg.Wait()
	if most > 3 || most == 0 {
		t.Errorf("%d pages rendered at once, want 1 to 3", most)
	}
}

// TestCompilePageIsWindowed: a compile of 450 messages shows the newest
// maxListed rows, with links to the windows before it; each link's window
// is maxListed rows or the rest.
func TestCompilePageIsWindowed(t *testing.T) {
	s := sqliteStore(t)
	r := tract.New(s, tract.Options{})
	ctx := context.Background()
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, 450)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Repo: r, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler(""))
	defer ts.Close()
	body := mustGet(t, ts.URL+"/tract/main/compile")
	if n := count(body, `<tr id="m\d+">`); n != maxListed || !strings.Contains(body, `<tr id="m449">`) || strings.Contains(body, `<tr id="m249">`) {
		t.Errorf("newest window: %d rows", n)
	}
	prev := regexp.MustCompile(`rel="prev" href="([^"]+)"`)
	m := prev.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no link to the earlier window")
	}
	body = mustGet(t, ts.URL+html.UnescapeString(m[1]))
	if n := count(body, `<tr id="m\d+">`); n != maxListed || !strings.Contains(body, `<tr id="m50">`) || !strings.Contains(body, `<tr id="m249">`) {
		t.Errorf("window before: %d rows", n)
	}
	body = mustGet(t, ts.URL+"/tract/main/compile?from=0")
	if n := count(body, `<tr id="m\d+">`); n != maxListed || !strings.Contains(body, `<tr id="m0">`) || strings.Contains(body, `rel="prev"`) {
		t.Errorf("first window: %d rows", n)
	}
}
