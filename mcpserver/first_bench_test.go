package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// BenchmarkContextCompileFirst100k: the first context_compile of a fresh
// server (a new tract.Repo: nothing cached) on a 100k-message tract
// compiled once before and one commit past it. "unbudgeted": the whole
// history, never inline (cpu-µs/op, the process's CPU a call; peak-MiB,
// the most heap in use sampled after the call, before any collection:
// targets 0.5 s and 150 MiB); "budget4000": a 4,000-token budget with the
// chain of 8 AGENTS.md files and an agent's profile, which must be inline.
func BenchmarkContextCompileFirst100k(b *testing.B) {
	ctx := context.Background()
	dir := project(b)
	deep := dir
	for i := range 8 {
		if i > 0 {
			deep = filepath.Join(deep, fmt.Sprint("d", i))
		}
		writeFile(b, filepath.Join(deep, "AGENTS.md"), fmt.Sprintf("# Level %d\n\n%s", i, strings.Repeat("- Run the tests before a commit; keep functions short and named for what they do.\n", 6)))
	}
	writeFile(b, filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agent.triad.json"),
		`{"schemaVersion":"0.4.0","slug":"tau","role":"librarian","guardrails":["no force push","ask before deleting files","keep secrets out of logs"],"directives":["be brief","cite the file and line"]}`+"\n")
	ageTree(b, dir)
	_, repo := newStore(b)
	reqs := []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are a careful engineer."}}}
	for i := range 99_999 {
		reqs = append(reqs, contextBenchMessage(i))
	}
	if _, err := repo.Import(ctx, "main", reqs); err != nil {
		b.Fatal(err)
	}
	if _, err := repo.CompileCold(ctx, "main", tract.CompileOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := repo.Commit(ctx, "main", contextBenchMessage(100_000)); err != nil {
		b.Fatal(err)
	}
	target, err := filepath.Rel(dir, deep)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		args   map[string]any
		inline bool
	}{
		{"unbudgeted", map[string]any{"tract": "main", "format": "openai"}, false},
		{"budget4000", map[string]any{"target": filepath.ToSlash(target), "slug": "tau", "tract": "main", "budget": 4000, "format": "openai-request"}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu, peak := 0.0, uint64(0)
			for b.Loop() {
				b.StopTimer()
				fresh := tract.New(repo.Store(), tract.Options{})
				srv, err := New(Options{Cwd: dir, StateDir: b.TempDir(), OpenTract: func(context.Context) (*tract.Repo, error) { return fresh, nil }})
				if err != nil {
					b.Fatal(err)
				}
				cs := inProcess(b, srv)
				runtime.GC()
				var m0 runtime.MemStats
				runtime.ReadMemStats(&m0)
				c0, _ := processCPU()
				b.StartTimer()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_compile", Arguments: bc.args})
				b.StopTimer()
				c1, ok := processCPU()
				var m1 runtime.MemStats
				runtime.ReadMemStats(&m1)
				if ok {
					cpu += c1 - c0
				}
				peak = max(peak, m1.HeapInuse-min(m1.HeapInuse, m0.HeapInuse))
				if err != nil || res.IsError {
					b.Fatal(err, contentText(res))
				}
				if inline := strings.Contains(string(mustJSON(b, res.StructuredContent)), `"inline":true`); inline != bc.inline {
					b.Fatalf("inline %v, want %v: %.300s", inline, bc.inline, mustJSON(b, res.StructuredContent))
				}
				fresh.Wait()
				b.StartTimer()
			}
			b.ReportMetric(cpu*1e6/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
		})
	}
}
