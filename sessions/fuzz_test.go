package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzClaudeRead feeds arbitrary bytes to the Claude reader as a
// transcript: it never panics, fails with a typed error naming a line, or
// gives records that each have a key, a known kind and an offset inside
// the file.
func FuzzClaudeRead(f *testing.F) {
	f.Add([]byte(claudeUser + "\n" + claudeAsst + "\n"))
	f.Add([]byte(`{"type":"last-prompt","leafUuid":"x"}` + "\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := ClaudeReader{}.Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{})
		if err != nil {
			var le *LineError
			var ue *UnclassifiedError
			if !errors.As(err, &le) && !errors.As(err, &ue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if b.Next.Offset > int64(len(data)) {
			t.Fatalf("cursor %d past the end %d", b.Next.Offset, len(data))
		}
		known := map[Kind]bool{KindMessage: true, KindToolCall: true, KindToolResult: true, KindReasoning: true,
			KindContext: true, KindCompaction: true, KindImage: true, KindMetadata: true, KindUnmapped: true}
		for _, r := range b.Records {
			if r.Key() == "" || !known[r.Kind] || r.Offset < 0 || r.Offset >= b.Next.Offset {
				t.Fatalf("bad record %+v", r)
			}
			if _, err := (&sessionMapper{im: &Importer{}, rep: &SessionReport{}, b: b}).request(&r); err != nil {
				t.Fatalf("record %s has no commit: %v", r.Key(), err)
			}
		}
	})
}
