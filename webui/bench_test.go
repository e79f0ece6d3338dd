package webui

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
)

// BenchmarkGraphWindow100k renders the newest window (50 commits) of a
// 100k-commit tract's graph, server time (target ≤ 200 ms), and the window
// an "older" link opens 50k commits down.
func BenchmarkGraphWindow100k(b *testing.B) {
	s := sqliteStore(b)
	r := tract.New(s, tract.Options{})
	ctx := context.Background()
	if _, _, err := r.Init(ctx); err != nil {
		b.Fatal(err)
	}
	const n, batch = 100_000, 10_000
	for i := 0; i < n; i += batch {
		reqs := make([]tract.CommitRequest, batch)
		for j := range reqs {
			reqs[j] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d about the report", i+j)}}
		}
		if _, err := r.Import(ctx, "main", reqs); err != nil {
			b.Fatal(err)
		}
	}
	deep, err := r.Log(ctx, "main", tract.LogOptions{N: 1, Skip: 50_000})
	if err != nil || len(deep) != 1 {
		b.Fatal(err)
	}
	// The newest window, and the page an "older" link leads to 50k
	// commits down (a cursor: it reads about one window, not 50k rows).
	for _, page := range []string{"/tract/main/graph", "/tract/main/graph?from=" + string(deep[0].Hash) + "&skip=1"} {
		b.Run(page, func(b *testing.B) {
			// A fresh repo each time: nothing cached from an earlier page.
			for b.Loop() {
				srv, err := New(Options{Repo: tract.New(s, tract.Options{}), Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: b.TempDir()}})
				if err != nil {
					b.Fatal(err)
				}
				rec := httptest.NewRecorder()
				srv.Handler("").ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost"+page, nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
