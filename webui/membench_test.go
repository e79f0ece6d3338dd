package webui

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// store100k is a tract of 100k messages.
func store100k(b *testing.B) tract.Store {
	s := sqliteStore(b)
	fill100k(b, s)
	return s
}

// fill100k commits 100k messages to main in s, a new store.
func fill100k(b *testing.B, s tract.Store) {
	r := tract.New(s, tract.Options{})
	ctx := context.Background()
	if _, _, err := r.Init(ctx); err != nil {
		b.Fatal(err)
	}
	const n, batch = 100_000, 10_000
	for i := 0; i < n; i += batch {
		reqs := make([]tract.CommitRequest, batch)
		for j := range reqs {
			reqs[j] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d about the report, with a few more words to make it read like one", i+j)}}
		}
		if _, err := r.Import(ctx, "main", reqs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPageMemory100k reports what one request of each page allocates
// (B/op) on a 100k-message tract once the server holds the tract's
// compiled view (built by a first request, outside the loop), the body's
// size and the peak heap in use, view included. A compile page renders
// only the part of the request it shows (requestShown): about 3 MB a
// request, where rendering the whole request took 75 MB (170 MB for
// anthropic).
func BenchmarkPageMemory100k(b *testing.B) {
	s := store100k(b)
	for _, page := range []string{"/tract/main/compile", "/tract/main/compile?budget=50000", "/tract/main/compile?format=anthropic", "/tract/main/graph", "/"} {
		b.Run(page, func(b *testing.B) {
			srv, err := New(Options{Repo: tract.New(s, tract.Options{}), Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: b.TempDir()}})
			if err != nil {
				b.Fatal(err)
			}
			get := func() *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+page, nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code, rec.Body.String()[:200])
				}
				return rec
			}
			get()
			var peak uint64
			b.ReportAllocs()
			for b.Loop() {
				rec := get()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				b.ReportMetric(float64(rec.Body.Len()), "body-bytes")
			}
			b.ReportMetric(float64(peak), "heap-inuse")
		})
	}
}

// BenchmarkFirstPage100k reports what the first request of a page costs
// a fresh server (a new repo: nothing cached) on a 100k-message tract
// whose compile checkpoint is stored (what `tract compile` leaves): bytes
// allocated (B/op), the peak of the heap's live objects above what it
// held before the request (peak-bytes, sampled every millisecond) and the
// body's size. The compile page reads its window from the checkpoint's
// messages part (tract.Repo.CompileWindow); building the compile's whole
// view for it took about 250 MB.
func BenchmarkFirstPage100k(b *testing.B) {
	s := store100k(b)
	if _, err := tract.New(s, tract.Options{}).CompileCold(context.Background(), "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, page := range []string{"/tract/main/compile", "/tract/main/compile?from=50000", "/tract/main/compile?budget=50000", "/tract/main/compile?format=anthropic", "/tract/main/graph"} {
		b.Run(page, func(b *testing.B) { benchPagePeak(b, s, page, 0) })
	}
}

// heapPeak runs fn and returns the most bytes of live heap objects seen
// above those before it, sampled every millisecond (and at its end).
func heapPeak(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	p := max(peak.Load(), read())
	if p < base {
		return 0
	}
	return p - base
}

// BenchmarkNeverCompiledPage100k reports what a page costs a fresh
// server on a 100k-message tract that was never compiled (no stored
// checkpoint: the tract's history a chain of appends, read in pieces,
// tract/window_chain.go): bytes allocated (B/op), the peak of the heap's
// live objects above what it held before (peak-bytes) and the body's
// size. Building the compile whole for it took about 250 MB.
func BenchmarkNeverCompiledPage100k(b *testing.B) {
	s := store100k(b)
	for _, page := range []string{"/tract/main/compile", "/tract/main/compile?from=50000", "/tract/main/compile?budget=50000", "/tract/main/compile?format=anthropic"} {
		b.Run(page, func(b *testing.B) { benchPagePeak(b, s, page, time.Hour) })
	}
}

// BenchmarkConcurrentFirstPages100k sends 8 compile pages at once to a
// fresh server over a fresh copy of a 100k-message store that was never
// compiled (no stored checkpoint), opened read-only as `lineage serve`
// opens it, and reports the peak of the heap's live objects above what it
// held before (peak-bytes, runtime/metrics sampled every millisecond) and
// the bytes allocated by the 8 (B/op). Each page reads the history in
// pieces (tract/window_chain.go); before, one page built the compile
// whole and stored its checkpoint while the other 7 waited for that turn
// (230-240 MB; 8 whole compiles at once reached 1.26 GB).
func BenchmarkConcurrentFirstPages100k(b *testing.B) {
	const pages = 8
	src := filepath.Join(b.TempDir(), "lineage.db")
	s, err := sqlite.Open(context.Background(), src, sqlite.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	fill100k(b, s)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "lineage.db")
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		data = nil
		if err != nil {
			b.Fatal(err)
		}
		ro, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		srv, err := New(Options{Repo: tract.New(ro, tract.Options{}), MaxConcurrent: pages, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: b.TempDir()}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		p := heapPeak(func() {
			var wg sync.WaitGroup
			for range pages {
				wg.Go(func() {
					rec := httptest.NewRecorder()
					srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/tract/main/compile", nil))
					if rec.Code != 200 {
						b.Error(rec.Code, rec.Body.String()[:200])
					}
				})
			}
			wg.Wait()
		})
		peak = max(peak, p)
		ro.Close()
	}
	b.ReportMetric(float64(peak), "peak-bytes")
}

// benchPagePeak serves page from a new server over s each iteration
// (timeout: its RequestTimeout, 0 for the default) and reports the page's
// size and the largest heap in use while it was served.
func benchPagePeak(b *testing.B, s tract.Store, page string, timeout time.Duration) {
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		srv, err := New(Options{Repo: tract.New(s, tract.Options{}), RequestTimeout: timeout, Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: b.TempDir()}})
		if err != nil {
			b.Fatal(err)
		}
		rec := httptest.NewRecorder()
		p := heapPeak(func() {
			srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+page, nil))
		})
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String()[:200])
		}
		peak = max(peak, p)
		b.ReportMetric(float64(rec.Body.Len()), "body-bytes")
	}
	b.ReportMetric(float64(peak), "peak-bytes")
}
