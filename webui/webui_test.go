package webui

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// hostile is stored text that must reach the page as text only.
const hostile = "<script>alert('x')</script><img src=x onerror=alert(1)>\x1b[31mred\x00"

// fixture is a store with two tracts: main (four messages, a hostile one
// among them), a child kid spawned from it whose two commits main merged
// back by reference, a compress summary, a skipped commit, a tag and a
// budget.
type fixture struct {
	repo     *tract.Repo
	store    tract.Store
	spawnAt  tract.Hash
	merge    tract.Hash
	skipped  tract.Hash
	kidFirst tract.Hash
}

func newFixture(t testing.TB, s tract.Store) fixture {
	t.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	r := tract.New(s, tract.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	f := fixture{repo: r, store: s}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	commit := func(name, text string) tract.Hash {
		t.Helper()
		c, err := r.Commit(ctx, name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: text}})
		must(err)
		return c.Hash
	}
	_, _, err := r.Init(ctx)
	must(err)
	commit("main", "first message")
	commit("main", "second message")
	commit("main", hostile)
	f.spawnAt = commit("main", "fourth message")
	_, err = r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "<b>look</b> it up"})
	must(err)
	f.kidFirst = commit("kid", "child found x")
	commit("kid", "child found y")
	mf, err := r.MergeFrom(ctx, "kid", "main")
	must(err)
	f.merge = mf.Merge
	f.skipped = commit("main", "a message to skip")
	_, err = r.Annotate(ctx, "main", string(f.skipped), tract.Skip, "noise")
	must(err)
	commit("main", "last message")
	_, err = r.CreateTag(ctx, "main", "v1", "HEAD")
	must(err)
	_, err = r.SetConfig(ctx, "main", "budget", "60")
	must(err)
	return f
}

func sqliteStore(t testing.TB) tract.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// countingRepo is a fresh SQLite store that counts the rows read, with
// reqs imported into its main tract.
func countingRepo(t testing.TB, reqs []tract.CommitRequest) (*storetest.Counting, *tract.Repo) {
	t.Helper()
	counting := storetest.NewCounting(sqliteStore(t))
	r := tract.New(counting, tract.Options{})
	ctx := context.Background()
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	return counting, r
}

// userMessages are n user messages "message 0" … "message n-1".
func userMessages(n int) []tract.CommitRequest {
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d", i)}}
	}
	return reqs
}

func newTestServer(t testing.TB, f fixture, o Options) *httptest.Server {
	t.Helper()
	o.Repo, o.Store = f.repo, "test.db"
	if o.Instructions.Cwd == "" {
		o.Instructions = instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler(""))
	t.Cleanup(ts.Close)
	return ts
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func mustGet(t testing.TB, url string) string {
	t.Helper()
	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", url, code, body)
	}
	return body
}

func count(body, re string) int { return len(regexp.MustCompile(re).FindAllStringIndex(body, -1)) }

func TestTractsPage(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ts := newTestServer(t, f, Options{})
	body := mustGet(t, ts.URL+"/")
	for _, want := range []string{
		`<tr data-tract="main">`, `<tr data-tract="kid">`,
		`<a href="/tract/main/graph">main</a> at <code>` + f.spawnAt.Short() + `</code> (reference: &lt;b&gt;look&lt;/b&gt; it up)`,
		`<td>v1</td>`, `<td class="num">60</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("tracts page lacks %q", want)
		}
	}
	if strings.Contains(body, "<b>look</b>") {
		t.Error("a spawn purpose reached the page as HTML")
	}
}

func TestGraphWindowAndEdges(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ts := newTestServer(t, f, Options{Window: 5})
	body := mustGet(t, ts.URL+"/tract/main/graph")
	if n := count(body, `<tr class="commit`); n != 5 {
		t.Fatalf("first window has %d commits, want 5", n)
	}
	// The older page continues from the window's last commit on HEAD's
	// first-parent chain (the merge), past the rows already shown.
	want := fmt.Sprintf(`<a rel="next" href="/tract/main/graph?from=%s&amp;skip=3">older →</a>`, f.merge)
	if !strings.Contains(body, want) {
		t.Fatalf("no link to the older page %s:\n%s", want, body)
	}
	// The merge-from's edge into kid's work crosses between tracts.
	if n := count(body, `<path class="edge cross"`); n < 1 {
		t.Errorf("no cross-tract edge in the window:\n%s", body)
	}
	if !strings.Contains(body, `class="commit skipped"`) || !strings.Contains(body, `<span class="mark skip">skipped</span>`) {
		t.Error("the skipped commit is not marked")
	}
	older := mustGet(t, ts.URL+"/tract/main/graph?from="+string(f.merge)+"&skip=3")
	if !strings.Contains(older, `spawned <a class="spawn" href="/tract/kid/graph">kid</a>`) {
		t.Errorf("the spawn point is not marked on the older page:\n%s", older)
	}
	if !strings.Contains(older, `<a href="/tract/main/graph">← newest</a>`) {
		t.Error("no link back to the newest page")
	}
	bySkip := mustGet(t, ts.URL+"/tract/main/graph?skip=5")
	if count(bySkip, `<tr class="commit`) != count(older, `<tr class="commit`) || !strings.Contains(bySkip, `<a rel="prev" href="/tract/main/graph">← newer</a>`) {
		t.Error("the page by skip differs from the page by cursor")
	}
	all := count(body, `<tr class="commit`) + count(older, `<tr class="commit`)
	log, err := f.repo.Log(context.Background(), "main", tract.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if all != len(log) {
		t.Errorf("two pages show %d commits, the log has %d", all, len(log))
	}
	kid := mustGet(t, ts.URL+"/tract/kid/graph")
	if !strings.Contains(kid, `spawned from <a href="/tract/main/graph">main</a>`) {
		t.Error("the child's page does not name its spawn parent")
	}
}

func TestCompressSummaryShowsItsRange(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ctx := context.Background()
	log, _ := f.repo.Log(ctx, "main", tract.LogOptions{})
	oldest, next := log[len(log)-1].Hash, log[len(log)-2].Hash
	if _, err := f.repo.Compress(ctx, "main", tract.CompressOptions{Range: string(oldest) + ".." + string(next), Summary: "the first two"}); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, f, Options{})
	body := mustGet(t, ts.URL+"/tract/main/graph")
	want := fmt.Sprintf(`stands in for <a href="/tract/main/commit/%s"><code>%s</code></a>..<a href="/tract/main/commit/%s"><code>%s</code></a>`, oldest, oldest.Short(), next, next.Short())
	if !strings.Contains(body, want) {
		t.Errorf("the summary's range is not shown: want %s", want)
	}
	if n := count(body, `<tr class="commit summarized"`); n != 2 {
		t.Errorf("%d rows marked summarized, want the range's 2", n)
	}
}

func TestCompileViewBudgetAndDrops(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ts := newTestServer(t, f, Options{})
	res, err := f.repo.Compile(context.Background(), "main", tract.CompileOptions{Budget: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped) == 0 {
		t.Fatal("fixture: a budget of 30 should drop messages")
	}
	body := mustGet(t, ts.URL+"/tract/main/compile?budget=30&format=anthropic")
	if !strings.Contains(body, fmt.Sprintf(`data-count="%d"`, len(res.Dropped))) {
		t.Errorf("dropped count is not %d", len(res.Dropped))
	}
	if n := count(body, `<tr id="m\d+">`); n != len(res.Messages) {
		t.Errorf("%d message rows, want %d", n, len(res.Messages))
	}
	if !strings.Contains(body, `<meter min="0" max="30" value="`+fmt.Sprint(res.Tokens)+`">`) {
		t.Error("no budget bar")
	}
	if !strings.Contains(body, `&#34;messages&#34;`) && !strings.Contains(body, `&quot;messages&quot;`) {
		t.Error("the anthropic request is not shown")
	}
	for _, bad := range []string{"budget=-1", "budget=x", "format=bogus", "format=json"} {
		if code, _ := get(t, ts.URL+"/tract/main/compile?"+bad); code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, code)
		}
	}
}

func TestHostileContentIsEscapedAndBounded(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ctx := context.Background()
	huge := strings.Repeat("é", MaxShownBytes) // 2 bytes each: twice the bound
	c, err := f.repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: huge}})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, f, Options{})
	for _, page := range []string{"/tract/main/graph", "/tract/main/compile", "/tract/main/find?q=alert", "/tract/main/commit/HEAD~2"} {
		body := mustGet(t, ts.URL+page)
		for _, raw := range []string{"<script>alert", "<img src=x", "\x1b", "\x00"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s: raw %q reached the page", page, raw)
			}
		}
	}
	hostilePage := mustGet(t, ts.URL+"/tract/main/find?q=alert")
	if !strings.Contains(hostilePage, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") || !strings.Contains(hostilePage, "␛[31mred␀") {
		t.Errorf("the hostile text is not shown as text:\n%s", hostilePage)
	}
	body := mustGet(t, ts.URL+"/tract/main/commit/"+string(c.Hash))
	if !strings.Contains(body, fmt.Sprintf("… %d more bytes not shown", len(huge)-MaxShownBytes)) {
		t.Error("a huge message is not cut with a count")
	}
	if len(body) > 2*MaxShownBytes {
		t.Errorf("commit page of a %d-byte message is %d bytes", len(huge), len(body))
	}
}

func TestHeadersAndMethods(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	ts := newTestServer(t, f, Options{})
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q", csp)
	}
	// The stylesheet's type is set by the server, not looked up in the
	// system's MIME tables.
	resp, err = http.Get(ts.URL + "/static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/css; charset=utf-8" {
		t.Errorf("style.css: %d, Content-Type %q", resp.StatusCode, ct)
	}
	resp, err = http.Post(ts.URL+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/", nil)
	req.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign origin: %d, want 403", resp.StatusCode)
	}
	for path, want := range map[string]int{
		"/tract/nope/graph": 404, "/tract/main/commit/ffffffffff": 404, "/tract/main/graph?n=100000": 400,
		"/tract/main/graph?skip=-2": 400, "/instructions?dir=../..": 400, "/instructions?dir=/etc": 400, "/nope": 404,
	} {
		if code, body := get(t, ts.URL+path); code != want {
			t.Errorf("%s: %d, want %d\n%s", path, code, want, body)
		}
	}
}

func TestTokenGuard(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	srv, err := New(Options{Repo: f.repo, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler("0123456789abcdef0123"))
	defer ts.Close()
	if code, _ := get(t, ts.URL+"/"); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/", nil)
	req.Header.Set("Authorization", "Bearer 0123456789abcdef0123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with token: %d, want 200", resp.StatusCode)
	}
}

// TestSlowClientAndConcurrentRequests holds a connection that never
// finishes its headers while 100 requests run at once: every one answers.
func TestSlowClientAndConcurrentRequests(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	srv, err := New(Options{Repo: f.repo, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, "") }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	slow, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprint(slow, "GET / HTTP/1.1\r\nHost: x\r\n") // and nothing more
	base := "http://" + ln.Addr().String()
	pages := []string{"/", "/tract/main/graph", "/tract/main/compile?budget=30", "/tract/kid/graph", "/tract/main/find?q=message"}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := http.Get(base + pages[i%len(pages)])
			if err != nil {
				errs <- err.Error()
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs <- fmt.Sprintf("%s: %d", pages[i%len(pages)], resp.StatusCode)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestGraphReadsTheWindowNotTheHistory counts the rows a graph page reads:
// a window of 20 over 2,000 commits costs about the same as over 200.
func TestGraphReadsTheWindowNotTheHistory(t *testing.T) {
	rows := func(n int) int64 {
		counting, r := countingRepo(t, userMessages(n))
		srv, err := New(Options{Repo: r, Window: 20, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		counting.Rows()
		rec := httptest.NewRecorder()
		srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/graph?skip=40", nil))
		if rec.Code != 200 || count(rec.Body.String(), `<tr class="commit`) != 20 {
			t.Fatalf("graph page: %d, %d rows", rec.Code, count(rec.Body.String(), `<tr class="commit`))
		}
		return counting.Rows()
	}
	small, large := rows(200), rows(2000)
	if large > small+10 || large > 400 {
		t.Fatalf("a 20-commit window read %d rows over 200 commits and %d over 2,000: it grows with the history", small, large)
	}
}

// TestCompileReadsTheWindowNotTheHistory counts the rows a compile page
// reads once the tract's compile checkpoint is stored: its window of 200
// messages, with a budget too, costs the same over 500 messages as over
// 2,500 (the checkpoint is one row, read and never held whole), where a
// compile from the history reads a row per commit.
func TestCompileReadsTheWindowNotTheHistory(t *testing.T) {
	pages := []string{"/tract/main/compile", "/tract/main/compile?budget=2000&format=anthropic", "/tract/main/compile?from=300"}
	rows := func(n int) []int64 {
		counting, r := countingRepo(t, userMessages(n))
		ctx := context.Background()
		// What `tract compile` leaves: the checkpoint at the head.
		if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
			t.Fatal(err)
		}
		srv, err := New(Options{Repo: tract.New(counting, tract.Options{}), Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		var read []int64
		for _, page := range pages {
			counting.Rows()
			rec := httptest.NewRecorder()
			srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+page, nil))
			body := rec.Body.String()
			last := n - 1
			if strings.Contains(page, "from=") {
				last = 499
			}
			if rec.Code != 200 || count(body, `<tr id="m`) != 200 || !strings.Contains(body, fmt.Sprintf(">message %d<", last)) {
				t.Fatalf("%s over %d: %d, %d rows", page, n, rec.Code, count(body, `<tr id="m`))
			}
			read = append(read, counting.Rows())
		}
		return read
	}
	small, large := rows(500), rows(2500)
	for i, page := range pages {
		if large[i] > small[i] || large[i] > 20 {
			t.Errorf("%s read %d rows over 500 messages and %d over 2,500: it grows with the history", page, small[i], large[i])
		}
	}
}
