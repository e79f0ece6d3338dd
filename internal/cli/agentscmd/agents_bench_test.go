package agentscmd_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/internal/agentstest"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// lineageBinary builds cmd/lineage once per test binary run, into one fixed
// temporary directory that later runs overwrite (nothing accumulates).
func lineageBinary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "lineage-bench-bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "lineage")
		out, err := exec.Command("go", "build", "-o", builtBin, "github.com/agentlineage/lineage/cmd/lineage").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if buildErr != nil {
		tb.Skipf("cannot build lineage: %v", buildErr)
	}
	return builtBin
}

func runProcess(b *testing.B, bin string, args ...string) {
	b.Helper()
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkProcessHelp is the floor every whole-process benchmark is
// compared with.
func BenchmarkProcessHelp(b *testing.B) {
	bin := lineageBinary(b)
	b.ResetTimer()
	runProcess(b, bin, "--help")
}

// BenchmarkProcessAgentsProfileNested runs "lineage agents profile" inside a
// submodule of the nested corpus workspace.
func BenchmarkProcessAgentsProfileNested(b *testing.B) {
	root, subs := agentstest.Nested(b)
	bin := lineageBinary(b)
	b.ResetTimer()
	runProcess(b, bin, "agents", "profile", "--slug", "product-manager", "--path", filepath.Join(root, subs[0]), "--explain")
}

// BenchmarkProcessAgentsJournal appends one entry per process to a
// 1,000-entry agency document.
func BenchmarkProcessAgentsJournal(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id":"e%d","timestamp":"2026-01-01T00:00:00Z","kind":"journal","title":"entry %d","summary":"a typical summary"}`, i, i)
	}
	dir := filepath.Join(root, ".clia/agents/s")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "s@ws.agency.triad.json"), []byte(`{"entries":[`+sb.String()+`]}`), 0o644)
	bin := lineageBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "agents", "journal", "--slug", "s", "--path", root, "--note", fmt.Sprint("n", i), "--signature", "-s")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
