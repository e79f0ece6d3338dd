package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/instructions"
)

// BenchmarkHandle: one hook call after a file tool at depth 20 — parse the
// event, restore the session under its lock, resolve 20 directories, and
// either write nothing (steady: nothing new) or write the state (new: the
// session forgets the deep file before each call).
func BenchmarkHandle(b *testing.B) {
	root := b.TempDir()
	dir := root
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	for i := 0; i <= 20; i++ {
		if i > 0 {
			dir = filepath.Join(dir, fmt.Sprintf("d%d", i))
		}
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("level"), 0o644)
	}
	event := []byte(fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":%q}}`, root, filepath.Join(dir, "f.go")))
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: b.TempDir()}
	ctx := context.Background()
	start := Event{Kind: Start, Name: "SessionStart", SessionID: "bench", Cwd: root}
	run := func(b *testing.B) {
		ev, err := Claude.ParseEvent(event)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Handle(ctx, Claude, ev, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("steady", func(b *testing.B) {
		Handle(ctx, Claude, start, opts)
		run(b)
		for b.Loop() {
			run(b)
		}
	})
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			Handle(ctx, Claude, start, opts)
			b.StartTimer()
			run(b)
		}
	})
}

// BenchmarkParseEvent: reading a Write event whose tool_input carries 1 MiB
// of file content (decoded in one pass with the event).
func BenchmarkParseEvent(b *testing.B) {
	content := strings.Repeat("0123456789abcdef", 1<<16)
	event := []byte(fmt.Sprintf(`{"session_id":"bench","cwd":"/r","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/r/f.go","content":%q}}`, content))
	b.SetBytes(int64(len(event)))
	for b.Loop() {
		ev, err := Claude.ParseEvent(event)
		if err != nil || len(ev.Paths) != 1 {
			b.Fatal(ev, err)
		}
	}
}
