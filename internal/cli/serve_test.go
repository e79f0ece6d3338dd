package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/platformtest"
)

// hostileText is a stored message that must reach every page as text.
const hostileText = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">`

// serveFixture fills the store url names through the CLI, as a user
// would: main with four messages (one hostile), a child spawned at the
// fourth whose two commits main merges back by reference, a compressed
// range, a skipped commit, a tag and a budget small enough to drop.
// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func serveFixture(t *testing.T, dir, url string) {
	t.Helper()
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		e := &clienv.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir,
			LookupEnv: func(k string) (string, bool) {
				if k == "LINEAGE_NOW" {
					return "2026-11-25T10:00:00Z", true
				}
				return "", false
			}}
		if code := Run(context.Background(), append([]string{"tract", "--store", url}, args...), e); code != 0 {
			t.Fatalf("lineage tract %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return strings.TrimSpace(out.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Rules\nRun the tests.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("init")
	first := run("commit", "--text", "first message")
	second := run("commit", "--text", "second message")
	run("commit", "--text", hostileText)
	run("commit", "--text", "fourth message")
	run("spawn", "kid", "--purpose", "<b>look</b> it up")
	run("--tract", "kid", "commit", "--text", "child found x")
	run("--tract", "kid", "commit", "--text", "child found y")
	run("merge-from", "kid")
	skip := run("commit", "--text", "a message to skip")
	run("annotate", skip, "skip")
	run("commit", "--text", "last message")
	run("compress", first+".."+second, "--summary", "the first two messages")
	run("tag", "v1")
	run("config", "budget", "40")
}

// startServe runs `lineage serve` on url until the test ends and returns
// the page's base URL.
func startServe(t *testing.T, dir, url string, flags ...string) string {
	t.Helper()
	stderr := &syncBuffer{}
	e := &clienv.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: stderr, Dir: dir}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	args := append([]string{"serve", "--store", url, "--addr", "127.0.0.1:0"}, flags...)
	go func() { done <- Run(ctx, args, e) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exit %d: %s", code, stderr.String())
		}
	})
	re := regexp.MustCompile(`serving (http://\S+)/ \(read-only`)
	for range 1000 {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("serve did not start: %s", stderr.String())
	return ""
}

// servePages checks every page of a served fixture over plain HTTP (no
// JavaScript, as the pages promise).
func servePages(t *testing.T, base string) {
	t.Helper()
	for path, wants := range map[string][]string{
		"/":                       {`<tr data-tract="main">`, `<tr data-tract="kid">`, `&lt;b&gt;look&lt;/b&gt; it up`, `over budget`},
		"/tract/main/graph":       {`<path class="edge cross"`, `class="commit skipped"`, `stands in for`, `spawned <a class="spawn" href="/tract/kid/graph">kid</a>`},
		"/tract/kid/graph":        {`spawned from <a href="/tract/main/graph">main</a>`},
		"/tract/main/commit/HEAD": {`the first two messages`, `<table id="blame">`},
		"/tract/main/compile":     {`<table id="messages">`, `&lt;script&gt;`},
		"/tract/main/compile?budget=40&format=openai-request": {`<span id="dropped" data-count="`, `<meter min="0" max="40"`},
		"/tract/main/diff?a=v1~3&b=v1":                        {`<table id="changes">`},
		"/tract/main/find?q=child&all=1":                      {`child found x`, `child found y`},
		"/instructions":                                       {`<table id="chain">`, `<p id="chain-tokens">`},
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d\n%s", path, resp.StatusCode, body)
			continue
		}
		for _, w := range wants {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("%s lacks %q", path, w)
			}
		}
		if bytes.Contains(body, []byte("<script>")) || bytes.Contains(body, []byte("<img src=x")) {
			t.Errorf("%s: stored HTML reached the page", path)
		}
	}
}

func TestServeSQLite(t *testing.T) {
	dir := t.TempDir()
	url := "sqlite:" + filepath.Join(dir, "store.db")
	serveFixture(t, dir, url)
	base := startServe(t, dir, url)
	servePages(t, base)
	serveInBrowser(t, base)
}

func TestServePostgres(t *testing.T) {
	cfg, err := pgx.ParseConfig(os.Getenv("LINEAGE_TEST_POSTGRES"))
	if err == nil {
		cfg.ConnectTimeout = 5 * time.Second
		var conn *pgx.Conn
		if conn, err = pgx.ConnectConfig(context.Background(), cfg); err == nil {
			conn.Close(context.Background())
		}
	}
	if err != nil {
		if os.Getenv("LINEAGE_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("LINEAGE_REQUIRE_POSTGRES=1 but no PostgreSQL server is reachable: %v", err)
		}
		t.Skipf("no PostgreSQL server reachable (set PG* or LINEAGE_TEST_POSTGRES; LINEAGE_REQUIRE_POSTGRES=1 turns this skip into a failure): %v", err)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "lineage_serve_" + hex.EncodeToString(b[:])
	if err := tractPostgresAdmin(cfg, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tractPostgresAdmin(cfg, `DROP SCHEMA `+schema+` CASCADE`) })
	dir := t.TempDir()
	url := tractPostgresTestURL(cfg, schema)
	serveFixture(t, dir, url)
	base := startServe(t, dir, url)
	servePages(t, base)
	serveInBrowser(t, base)
}

// startBrowser starts headless Chromium for a browser test and returns
// its context and the folder screenshots go to ($LINEAGE_SCREENSHOTS when
// set, else a temporary directory); ok is false when the machine has no
// Chromium and the test goes on without its browser half (a failure under
// LINEAGE_REQUIRE_CHROMIUM=1). The browser stops when the test ends.
func startBrowser(t *testing.T) (ctx context.Context, shots string, ok bool) {
	t.Helper()
	bin := platformtest.Chromium()
	if bin == "" {
		if os.Getenv("LINEAGE_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("LINEAGE_REQUIRE_CHROMIUM=1 but no chromium is installed (apt-get install chromium)")
		}
		t.Log("no chromium on PATH: the browser half of this test is skipped (LINEAGE_REQUIRE_CHROMIUM=1 makes it fail)")
		return nil, "", false
	}
	shots = os.Getenv("LINEAGE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Env("TMPDIR="+platformtest.BrowserTempDir(t)), chromedp.Flag("disable-quic", true), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// The first Run starts the browser; its context must not carry the
	// timeout (that would stop the browser), the pages' runs do.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`1`)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx, shots, true
}

// serveInBrowser drives headless Chromium through the pages and asserts on
// the DOM it built: what a person sees, scripts and all (there are none).
// Screenshots go to $LINEAGE_SCREENSHOTS when set, else a temporary
// directory. Without Chromium it skips, unless LINEAGE_REQUIRE_CHROMIUM=1.
func serveInBrowser(t *testing.T, base string) {
	t.Helper()
	ctx, shots, ok := startBrowser(t)
	if !ok {
		return
	}
	open := func(path string, ready chromedp.ID) {
		t.Helper()
		tctx, stop := context.WithTimeout(ctx, 30*time.Second)
		defer stop()
		if err := chromedp.Do(tctx, chromedp.Navigate(base+path), chromedp.WaitVisible(ready)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	eval := func(expr string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return n
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		save(t, shots, name, png)
	}
	ran := func(page string) {
		t.Helper()
		title, err := chromedp.Run(ctx, chromedp.Title())
		if err != nil {
			t.Fatal(err)
		}
		// No script element and no image at all: stored markup never
		// became DOM, and the pages bring none of their own.
		if n := eval(`document.scripts.length + document.images.length`); n != 0 || strings.Contains(title, "pwned") {
			t.Errorf("%s: %d scripts or images in the DOM, title %q: stored content became markup", page, n, title)
		}
	}

	open("/tract/main/graph", "commits")
	shot("graph.png")
	rows, cross := eval(`document.querySelectorAll("#commits tr.commit").length`), eval(`document.querySelectorAll("svg.lanes path.edge.cross").length`)
	if rows != 10 || cross < 2 {
		t.Errorf("graph: %d commit rows (want 10: 8 of main with the merge and the summary, 2 of kid merged by reference), %d cross-tract edges (want 2: into kid's work and back)", rows, cross)
	}
	ran("graph")

	open("/tract/main/compile?budget=40", "messages")
	shot("compile.png")
	dropped, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.ID("dropped"), "data-count"))
	if err != nil {
		t.Fatal(err)
	}
	if dropped.Value == "" || dropped.Value == "0" {
		t.Errorf("compile under a budget of 40: dropped count %q, want some", dropped.Value)
	}
	ran("compile")

	open("/", "tracts")
	shot("tracts.png")
	if n := eval(`document.querySelectorAll("#tracts tbody tr").length`); n != 2 {
		t.Errorf("tracts page: %d rows, want 2", n)
	}
	ran("tracts")

	open("/tract/main/find?q=pwned", "found")
	shot("find.png")
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#found td.summary").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if text != hostileText {
		t.Errorf("find shows %q, want the stored text %q", text, hostileText)
	}
	ran("find")
}

func save(t *testing.T, dir, name string, png []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot %s", filepath.Join(dir, name))
}

// TestServeOpen runs $BROWSER with the page's URL.
func TestServeOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in browser is a shell script; Windows has no sh")
	}
	dir := t.TempDir()
	url := "sqlite:" + filepath.Join(dir, "store.db")
	serveFixture(t, dir, url)
	got := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	e := &clienv.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: stderr, Dir: dir,
		LookupEnv: func(k string) (string, bool) {
			if k == "BROWSER" {
				return browser, true
			}
			return "", false
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- Run(ctx, []string{"serve", "--store", url, "--addr", "127.0.0.1:0", "--open"}, e) }()
	defer func() { cancel(); <-done }()
	re := regexp.MustCompile(`serving (http://\S+/) \(read-only`)
	for range 1000 {
		m := re.FindStringSubmatch(stderr.String())
		if data, err := os.ReadFile(got); m != nil && err == nil && len(data) > 0 {
			if string(data) != m[1] {
				t.Fatalf("$BROWSER got %q, want %q", data, m[1])
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("$BROWSER was not run: %s", stderr.String())
}
