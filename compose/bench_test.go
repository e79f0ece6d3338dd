package compose_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
)

// benchWorld is a three-level AGENTS.md chain, an agent with two layers
// and a tract of n messages, compiled once (the views are warm).
func benchWorld(b *testing.B, n int) (compose.Options, *tract.Repo) {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	files := map[string]string{
		".git/HEAD":      "ref: refs/heads/main\n",
		"AGENTS.md":      "# Repository rules\nRun the tests before every commit.\n",
		"svc/AGENTS.md":  "Services speak JSON over HTTP; never log secrets.\n",
		"svc/api/x.go":   "package api\n",
		"svc/AGENTS2.md": "unused\n",
		".clia/agents/coder/coder@repo.agent.triad.json":    `{"schemaVersion":"0.4.0","slug":"coder","role":"Coder","guardrails":["Never push to main"]}`,
		"svc/.clia/agents/coder/coder@svc.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"coder","purpose":"Keep the services fast","guardrails":["Keep handlers small"]}`,
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	repo := newRepo(b, dir, nil)
	reqs := []tract.CommitRequest{{Content: tract.Content{Type: tract.TypeInstruction, Text: "You are a careful engineer."}}}
	for i := 0; i < n-1; i++ {
		reqs = append(reqs, benchMessage(i))
	}
	if _, err := repo.Import(ctx, "main", reqs); err != nil {
		b.Fatal(err)
	}
	o := compose.Options{
		Target:       filepath.Join(dir, "svc", "api", "x.go"),
		Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
		Slug:         "coder",
		Repo:         repo,
		Tract:        "main",
		Budget:       8000,
		Format:       compose.FormatOpenAIRequest,
	}
	if _, err := compose.Compile(ctx, o); err != nil {
		b.Fatal(err)
	}
	return o, repo
}

func benchMessage(i int) tract.CommitRequest {
	role := tract.RoleUser
	if i%2 == 1 {
		role = tract.RoleAssistant
	}
	return tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role,
		Text: fmt.Sprintf("message %d: a line of conversation about the service and its tests", i)}}
}

// BenchmarkCompileAfterAppend10k is the second compile of a 10k-message
// tract after one appended commit: the tract's warm view is extended, the
// instruction chain and the profile are loaded again (target ≤ 1 ms).
func BenchmarkCompileAfterAppend10k(b *testing.B) {
	o, repo := benchWorld(b, 10_000)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := 0.0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := repo.Commit(ctx, "main", benchMessage(10_000+i)); err != nil {
			b.Fatal(err)
		}
		c0, _ := processCPU()
		b.StartTimer()
		res, err := compose.Compile(ctx, o)
		b.StopTimer()
		c1, ok := processCPU()
		b.StartTimer()
		if err != nil || len(res.DroppedMessages) == 0 {
			b.Fatal(err)
		}
		if ok {
			cpu += c1 - c0
		}
	}
	b.ReportMetric(cpu*1e6/float64(b.N), "cpu-µs/op")
}
