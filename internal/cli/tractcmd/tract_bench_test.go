package tractcmd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tractBuildLineage builds the real binary once per benchmark.
func tractBuildLineage(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "lineage")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/agentlineage/lineage/cmd/lineage").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func tractRunBin(b *testing.B, dir, bin string, args ...string) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LINEAGE_STORE=", "LINEAGE_TRACT=")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", args, err, out)
	}
}

// BenchmarkTractProcess compares a whole `lineage tract commit` process with
// `lineage --help` (target: commit ≤ 2× help).
func BenchmarkTractProcess(b *testing.B) {
	bin := tractBuildLineage(b)
	dir := b.TempDir()
	tractRunBin(b, dir, bin, "tract", "init")
	b.Run("help", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tractRunBin(b, dir, bin, "--help")
		}
	})
	b.Run("tract-commit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tractRunBin(b, dir, bin, "tract", "commit", "--text", "hello")
		}
	})
}
