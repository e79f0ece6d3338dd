package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCapturedFixturesLand imports the transcripts cmd/lineage's harness
// tests captured from the real programs (sessions/testdata/captured-*.tar.gz,
// written by `go test ./cmd/lineage -run '^TestHarness' -update-fixtures`,
// see docs/sessions.md): every line of each is a record or a counted skip,
// every record's key is in a commit its session's tract reaches, and a
// second import adds nothing. A record type a newer harness writes that the
// readers have not classified fails here, naming the file and line.
func TestCapturedFixturesLand(t *testing.T) {
	for _, h := range []struct {
		harness Harness
		reader  Reader
	}{{Claude, ClaudeReader{}}, {Codex, CodexReader{}}, {Gemini, GeminiReader{}}} {
		t.Run(string(h.harness), func(t *testing.T) {
			dir := unpack(t, "captured-"+string(h.harness))
			runs, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) == 0 {
				t.Fatal("no captured run")
			}
			for _, run := range runs {
				t.Run(run.Name(), func(t *testing.T) {
					repo, _ := newRepo(t)
					ctx := context.Background()
					var srcs []Source
					for _, p := range transcripts(t, filepath.Join(dir, run.Name())) {
						srcs = append(srcs, Source{Harness: h.harness, Path: p})
					}
					if len(srcs) == 0 {
						t.Fatal("no transcript captured")
					}
					im := &Importer{Repo: repo}
					rep, err := im.Import(ctx, srcs)
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range rep.Sessions {
						checkSessionWith(t, repo, s, h.reader)
					}
					again, err := im.Import(ctx, srcs)
					if err != nil {
						t.Fatal(err)
					}
					if again.Added != 0 {
						t.Errorf("re-import added %d commits, want 0", again.Added)
					}
				})
			}
		})
	}
}
