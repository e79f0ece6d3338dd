package mcpserver

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The catalog in the server instructions leaves out what the client's
// harness lists itself: Claude Code is not told about .claude/skills again,
// Codex CLI not about .agents/skills; a client lineage does not recognise
// gets every skill.
func TestSkillsCatalogLeavesOutWhatTheHarnessLists(t *testing.T) {
	dir := project(t)
	writeFile(t, filepath.Join(dir, ".agents", "skills", "release-check", "SKILL.md"), skillFile("release-check", "Run the release checklist.", "x"))
	writeFile(t, filepath.Join(dir, ".claude", "skills", "pdf", "SKILL.md"), skillFile("pdf", "Fill PDF forms.", "x"))
	srv, err := New(Options{Cwd: dir, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for client, want := range map[string][]bool{
		"claude-code":      {true, false},
		"codex-mcp-client": {false, true},
		"opencode":         {true, true},
	} {
		ins := connectAs(t, srv, client).InitializeResult().Instructions
		got := []bool{strings.Contains(ins, "<name>release-check</name>"), strings.Contains(ins, "<name>pdf</name>")}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: catalog lists release-check, pdf = %v, want %v:\n%s", client, got, want, ins)
		}
	}
}

// Cut for space, the catalog keeps the skills nearest the working directory
// and its note names the ones left out and says to search for them.
func TestSkillsCatalogCutNamesWhatItLeftOut(t *testing.T) {
	dir := project(t)
	long := strings.Repeat("Handles a kind of document in detail. ", 25)
	for i := range 12 {
		n := fmt.Sprintf("root-%02d", i)
		writeFile(t, filepath.Join(dir, ".agents", "skills", n, "SKILL.md"), skillFile(n, long, "x"))
	}
	sub := filepath.Join(dir, "sub")
	writeFile(t, filepath.Join(sub, ".agents", "skills", "zz-near", "SKILL.md"), skillFile("zz-near", long, "x"))
	srv, err := New(Options{Cwd: sub, AllowRoots: []string{dir}, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ins := connectAs(t, srv, "opencode").InitializeResult().Instructions
	if !strings.Contains(ins, "<name>zz-near</name>") {
		t.Errorf("the skill nearest the cwd was cut:\n%s", ins)
	}
	if !strings.Contains(ins, "<name>root-00</name>") || strings.Contains(ins, "<name>root-11</name>") ||
		!strings.Contains(ins, "root-11. To use one, call skills_search with the task, then skills_load with its name.</note>") {
		t.Errorf("the cut note does not name root-11 or say how to reach it:\n%s", ins[strings.Index(ins, "<skills_context>"):])
	}
}
