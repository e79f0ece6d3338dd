package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/instructions"
)

// A hook delivers what the instructions service loads beyond the chain: an
// import's body at start, a scoped rule's path when a touched path matches,
// and an import's change later.
func TestHookDeliversImportsAndRules(t *testing.T) {
	r := repo(t)
	for p, body := range map[string]string{
		"AGENTS.md":            "root @docs/style.md",
		"docs/style.md":        "style rules",
		".claude/rules/ts.md":  "---\npaths: [\"web/**/*.ts\"]\n---\nts rule",
		".agents/rules/all.md": "all rule",
		".claude/rules/own.md": "claude loads this itself",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(r, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: filepath.Join(t.TempDir(), "sessions")}
	start := handle(t, opts, Event{Kind: Start, Name: "SessionStart", SessionID: "b1", Cwd: r})
	for _, want := range []string{"Instructions from: " + filepath.Join(r, "docs", "style.md") + "\nstyle rules", "Instructions from: " + filepath.Join(r, ".agents", "rules", "all.md") + "\nall rule"} {
		if !strings.Contains(start, want) {
			t.Errorf("start context lacks %q:\n%s", want, start)
		}
	}
	// Claude Code loads .claude/rules/ itself: its body is not sent again.
	if strings.Contains(start, "claude loads this itself") {
		t.Errorf("a .claude/rules body sent to Claude Code:\n%s", start)
	}
	tool := handle(t, opts, Event{Kind: Tool, Name: "PostToolUse", SessionID: "b1", Cwd: r, Paths: []string{"web/src/app.ts"}})
	if !strings.Contains(tool, "- "+filepath.Join(r, ".claude", "rules", "ts.md")+" (mtime: ") || !strings.Contains(tool, "- "+filepath.Join(r, "web", "AGENTS.md")+" (mtime: ") {
		t.Errorf("touching web/src/app.ts:\n%s", tool)
	}
	if err := os.WriteFile(filepath.Join(r, "docs/style.md"), []byte("style rules, changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := handle(t, opts, Event{Kind: Tool, Name: "PostToolUse", SessionID: "b1", Cwd: r, Paths: []string{"x.go"}})
	if !strings.Contains(again, "- "+filepath.Join(r, "docs", "style.md")+" (mtime: ") {
		t.Errorf("after the import changed:\n%s", again)
	}
}
