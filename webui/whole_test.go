package webui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/storetest"
)

// TestNeverCompiledBuildsOnce sends 8 compile pages at once for a tract
// that was never compiled (no stored checkpoint): all 8 are in flight
// before any reads, and all 8 find no checkpoint, but one builds the
// compile whole (reading the history) while the others wait for its
// turn, then read their window from the checkpoint it stored. Without
// the turn each would read the whole history (8 × n rows).
func TestNeverCompiledBuildsOnce(t *testing.T) {
	const n, pages = 600, 8
	counting := storetest.NewCounting(sqliteStore(t))
	r := tract.New(counting, tract.Options{})
	ctx := context.Background()
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d", i)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Repo: tract.New(counting, tract.Options{}), MaxConcurrent: pages, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	var all sync.WaitGroup
	all.Add(pages)
	srv.rendering = func() { all.Done(); all.Wait() } // every page in flight first
	var mu sync.Mutex
	waited := 0
	srv.wholeWaiting = func() { mu.Lock(); waited++; mu.Unlock() }
	counting.Rows()
	var wg sync.WaitGroup
	for range pages {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile", nil))
			if body := rec.Body.String(); rec.Code != 200 || count(body, `<tr id="m`) != maxListed || !strings.Contains(body, fmt.Sprintf(">message %d<", n-1)) {
				t.Errorf("%d, %d rows", rec.Code, count(body, `<tr id="m`))
			}
		})
	}
	wg.Wait()
	rows := counting.Rows()
	if waited != pages {
		t.Errorf("%d pages asked to build the compile whole, want %d (all in flight with no checkpoint)", waited, pages)
	}
	if rows > 2*n {
		t.Errorf("%d pages read %d rows over %d messages: more than one whole compile (want < %d)", pages, rows, n, 2*n)
	}
	t.Logf("%d pages at once, %d messages: %d rows read", pages, n, rows)
}

// TestBusyIsRetryAfter: a page that waits its whole RequestTimeout for a
// turn gets 503 with Retry-After.
func TestBusyIsRetryAfter(t *testing.T) {
	f := newFixture(t, sqliteStore(t))
	srv, err := New(Options{Repo: f.repo, MaxConcurrent: 1, RequestTimeout: 50 * time.Millisecond, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	srv.rendering = func() { close(held); <-release }
	h := srv.Handler("")
	done := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile", nil))
		done <- rec.Code
	}()
	<-held
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != retryAfter {
		t.Errorf("second page while the only turn is held: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	srv.rendering = nil
	close(release)
	<-done
}
