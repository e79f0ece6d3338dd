package webui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
)

// attackPage is what a page of another origin runs once its name resolves
// to this machine: a same-origin fetch (so no Origin header) of the
// compiled conversation, whose status and text it puts in the DOM.
const attackPage = `<!doctype html><title>attack</title><pre id="out"></pre><script>
fetch("/tract/main/compile").then(r => r.text().then(t => {
  document.getElementById("out").textContent = t;
  document.body.dataset.status = String(r.status);
  document.body.appendChild(Object.assign(document.createElement("p"), {id: "done"}));
}));
</script>`

// TestDNSRebindingInChromium plays a DNS-rebinding attack in headless
// Chromium. The stand-in attacker origin is http://rebind.test:PORT (the
// browser's resolver maps rebind.test to 127.0.0.1): its first answer is
// the attack page; every later request is passed to the lineage server
// with the Host header the browser sent, which is what the server sees
// once the attacker's DNS answer points at it. The page gets 421 and none
// of the store; the same page loaded as localhost (a name the server is
// bound to) reads it, so the attack would work but for the Host check.
func TestDNSRebindingInChromium(t *testing.T) {
	bin := platformtest.Chromium()
	if bin == "" {
		if os.Getenv("LINEAGE_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("LINEAGE_REQUIRE_CHROMIUM=1 but no chromium is installed (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH: the DNS-rebinding test needs a browser (LINEAGE_REQUIRE_CHROMIUM=1 makes this skip a failure)")
	}
	f := newFixture(t, sqliteStore(t))
	srv, err := New(Options{Repo: f.repo, Store: "test.db", Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	lineage := httptest.NewServer(srv.Handler(""))
	defer lineage.Close()
	target, _ := url.Parse(lineage.URL)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
	}}
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/attack" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, attackPage)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer attacker.Close()
	port := attacker.URL[strings.LastIndex(attacker.URL, ":")+1:]

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Env("TMPDIR="+platformtest.BrowserTempDir(t)), chromedp.Flag("disable-quic", true),
		chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`1`)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	attack := func(origin string) (string, string) {
		t.Helper()
		tctx, stop := context.WithTimeout(ctx, 30*time.Second)
		defer stop()
		if err := chromedp.Do(tctx, chromedp.Navigate(origin+"/attack"), chromedp.WaitReady(chromedp.ID("done"))); err != nil {
			t.Fatalf("%s/attack: %v", origin, err)
		}
		status, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.body.dataset.status`))
		if err != nil {
			t.Fatal(err)
		}
		text, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.getElementById("out").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		return status, text
	}
	if status, text := attack("http://localhost:" + port); status != "200" || !strings.Contains(text, "first message") {
		t.Fatalf("control: the page as localhost read %s %q, want 200 and the compiled messages (the stand-in does not reach the server)", status, text)
	}
	status, text := attack("http://rebind.test:" + port)
	if status != "421" {
		t.Errorf("rebound origin: status %s, want 421", status)
	}
	if strings.Contains(text, "first message") || strings.Contains(text, "<table") {
		t.Errorf("rebound origin read the store: %.200q", text)
	}
	if !strings.Contains(text, `host "rebind.test:`+port+`" is not a name this server is bound to`) {
		t.Errorf("rebound origin: answer %.200q does not say why", text)
	}
}
