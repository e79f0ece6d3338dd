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
)

// TestNeverCompiledBuildsOnce sends 8 compile pages at once for a tract
// that was never compiled (no stored checkpoint) and whose history is not
// a chain of appends (an edit: the window cannot be read in pieces, see
// TestNeverCompiledPageReadsInPieces): all 8 find no checkpoint and ask
// for the turn before any has it, but one builds the
// compile whole (reading the history) while the others wait for its
// turn, then read their window from the checkpoint it stored. Without
// the turn each would read the whole history (8 × n rows).
func TestNeverCompiledBuildsOnce(t *testing.T) {
	const n, pages = 600, 8
	counting, r := countingRepo(t, userMessages(n))
	if _, err := r.Edit(context.Background(), "main", "HEAD~1", "message 598, edited", ""); err != nil {
		t.Fatal(err)
	}
	// Pieces of 16: a page's try to read the history in pieces (it stops
	// at the edit) reads a piece.
	srv, err := New(Options{Repo: tract.New(counting, tract.Options{WindowPiece: 16}), MaxConcurrent: pages, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	// Every page asks for the turn before any takes it: none can find a
	// checkpoint another stored.
	var all sync.WaitGroup
	all.Add(pages)
	var mu sync.Mutex
	waited := 0
	srv.wholeWaiting = func() { mu.Lock(); waited++; mu.Unlock(); all.Done(); all.Wait() }
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
	if rows > 2*n+pages*32 {
		t.Errorf("%d pages read %d rows over %d messages: more than one whole compile (want < %d)", pages, rows, n, 2*n+pages*32)
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

// TestCompilePageAppliesThePrunePolicy: the compile page applies the
// tract's prune policy (`tract config prune`) as `tract compile` does,
// lists what it left out, and still reads its window from the stored
// checkpoint: the rows it reads are the same over 60 turns as over 300.
// ?prune=none shows the tract unpruned.
func TestCompilePageAppliesThePrunePolicy(t *testing.T) {
	page := func(turns int, query string) (string, int64) {
		var reqs []tract.CommitRequest
		for i := range turns {
			id := fmt.Sprintf("call%d", i)
			reqs = append(reqs,
				tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("turn %d", i)}},
				tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: id, Name: "sh", Arguments: `{}`}}}},
				tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: id, Text: fmt.Sprintf("output %d", i)}})
		}
		counting, r := countingRepo(t, reqs)
		ctx := context.Background()
		if _, err := r.SetConfig(ctx, "main", "prune", "tool-results older-than=2"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
			t.Fatal(err)
		}
		srv, err := New(Options{Repo: tract.New(counting, tract.Options{}), Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		counting.Rows()
		rec := httptest.NewRecorder()
		srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile"+query, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", query, rec.Code, rec.Body.String())
		}
		return rec.Body.String(), counting.Rows()
	}
	body, small := page(60, "")
	// The newest two turns keep their results: 58 pruned, 3×60-58 shown.
	if !strings.Contains(body, `<p id="pruned" data-count="58">The prune policy <code>tool-results older-than=2</code> left out 58 message(s)`) ||
		!strings.Contains(body, "in 122 messages") || count(body, `<tr id="m`) != 122 {
		t.Errorf("pruned page: %d rows\n%s", count(body, `<tr id="m`), body)
	}
	if strings.Contains(body, ">output 57<") || !strings.Contains(body, ">output 58<") || !strings.Contains(body, ">output 59<") {
		t.Error("the page shows a pruned result or hides a kept one")
	}
	if n := count(body, `<td>tool-results</td>`); n != 58 {
		t.Errorf("%d pruned rows listed, want 58", n)
	}
	body, _ = page(60, "?prune=none")
	if strings.Contains(body, `id="pruned"`) || !strings.Contains(body, "in 180 messages") || !strings.Contains(body, ">output 0<") {
		t.Errorf("prune=none: the page is pruned")
	}
	if code, _ := func() (int, string) {
		srv, _ := New(Options{Repo: tract.New(sqliteStore(t), tract.Options{}), Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
		rec := httptest.NewRecorder()
		srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile?prune=results", nil))
		return rec.Code, rec.Body.String()
	}(); code != http.StatusBadRequest {
		t.Errorf("prune=results: %d, want 400", code)
	}
	_, large := page(300, "")
	if small != large {
		t.Errorf("a pruned compile page read %d rows over 60 turns, %d over 300: not the checkpoint's window", small, large)
	}
}

// TestNeverCompiledPageReadsInPieces: the compile page of a tract that was
// never compiled, whose history is a chain of appends, reads the history
// in pieces (tract.Options.WindowPiece commits) and never holds it whole:
// no store read returns more rows than a piece, over 600 messages as
// over 1,200 (the whole compile read them all at once), and no checkpoint
// is stored. The page is the one read from a stored checkpoint, byte for
// byte, with a budget too.
func TestNeverCompiledPageReadsInPieces(t *testing.T) {
	const piece = 128
	for _, n := range []int{600, 1200} {
		reqs := append([]tract.CommitRequest{{Content: tract.Content{Type: tract.TypeInstruction, Name: "rules", Text: "be brief"}}}, userMessages(n)...)
		counting, r := countingRepo(t, reqs)
		page := func(query string) string {
			srv, err := New(Options{Repo: tract.New(counting, tract.Options{WindowPiece: piece}), Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile"+query, nil))
			if rec.Code != 200 {
				t.Fatalf("%d messages%s: %d %s", n, query, rec.Code, rec.Body.String())
			}
			return rec.Body.String()
		}
		ctx := context.Background()
		for _, query := range []string{"", "?budget=2000", "?from=300"} {
			counting.Largest()
			pieces := page(query)
			if largest := counting.Largest(); largest > piece {
				t.Errorf("%d messages%s: a read returned %d rows, more than a piece (%d)", n, query, largest, piece)
			}
			if _, err := counting.CompiledView(ctx, mainID(t, r), "o200k_base", tract.ViewHeader); err == nil {
				t.Errorf("a checkpoint was stored")
			}
			if !strings.Contains(pieces, fmt.Sprintf(">message %d<", n-1)) && query != "?from=300" {
				t.Errorf("%d messages%s: the newest message is not shown", n, query)
			}
			if _, err := r.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
				t.Fatal(err)
			}
			if stored := page(query); stored != pieces {
				t.Errorf("%d messages%s: the page read in pieces differs from the one read from the checkpoint", n, query)
			}
			if err := counting.Update(ctx, func(tx tract.Tx) error { return tx.DeleteCompiledView(ctx, mainID(t, r), "o200k_base") }); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// mainID is the id of r's tract main.
func mainID(t *testing.T, r *tract.Repo) string {
	t.Helper()
	m, err := r.Tract(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}
