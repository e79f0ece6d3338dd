package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// benchFile is the largest Claude fixture (2.1.332 main session).
func benchFile(b testing.TB) (string, int64) {
	dir := unpack(b, "claude")
	p := filepath.Join(dir, "claude-2.1.332", ".claude", "projects", "-repo", "11111111-2222-4333-8444-555555555555.jsonl")
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, st.Size()
}

// BenchmarkClaudeRead is the reader alone: bytes of transcript per second.
func BenchmarkClaudeRead(b *testing.B) {
	p, size := benchFile(b)
	b.SetBytes(size)
	for b.Loop() {
		if _, err := (ClaudeReader{}).Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportClaude is a whole first import into a fresh SQLite store.
func BenchmarkImportClaude(b *testing.B) {
	p, size := benchFile(b)
	b.SetBytes(size)
	for b.Loop() {
		b.StopTimer()
		repo, _ := newRepo(b)
		b.StartTimer()
		if _, err := (&Importer{Repo: repo}).Import(context.Background(), []Source{{Harness: Claude, Path: p}}); err != nil {
			b.Fatal(err)
		}
	}
}
