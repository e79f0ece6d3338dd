package journal

import (
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/agentstest"
)

func corpusOrSkip(t testing.TB) string { return agentstest.CorpusDir(t) }

func folders(t testing.TB, _ string) []string { return agentstest.Folders(t) }

func copyFolder(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(tempRoot(t), "ws")
	if err := agentstest.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}
