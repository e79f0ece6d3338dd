package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

// The corpus's gemini agent names a persona and compact and full system
// instructions: the prompt texts are the persona and the compact file, each
// with the document that named it; a missing file and one outside the
// workspace are warnings, never read.
func TestPromptTextsFollowTheDocumentThatNamesThem(t *testing.T) {
	ws := filepath.Join(tempRoot(t), "ws")
	if err := agentstest.CopyTree(filepath.Join(agentstest.CorpusDir(t), "wrkstrm__google-ai-swift"), ws); err != nil {
		t.Fatal(err)
	}
	tree(t, ws, map[string]string{".git": "<dir>"})
	p, err := BuildProfile(Options{Path: ws}, "gemini", triad.Agent)
	if err != nil {
		t.Fatal(err)
	}
	texts, warnings := p.PromptTexts()
	dir := filepath.Join(ws, ".clia/agents/gemini")
	doc := filepath.Join(dir, "gemini@google-ai-swift.agent.triad.json")
	if len(texts) != 2 || len(warnings) != 0 {
		t.Fatalf("texts %+v, warnings %q", texts, warnings)
	}
	for i, want := range []struct{ name, ptr, file string }{
		{"persona", "/persona/profilePath", "gemini@google-ai-swift.persona.agent.triad.md"},
		{"systemInstructions", "/systemInstructions/compactPath", "gemini@google-ai-swift.system-instructions-compact.agent.triad.md"},
	} {
		b, _ := os.ReadFile(filepath.Join(dir, want.file))
		got := texts[i]
		if got.Name != want.name || got.Pointer != want.ptr || got.DeclaredIn != doc || got.File != filepath.Join(dir, want.file) || got.Text != strings.TrimSpace(string(b)) {
			t.Errorf("text %d = %+v", i, got)
		}
	}

	outside := filepath.Join(tempRoot(t), "secret.md")
	os.WriteFile(outside, []byte("secret"), 0o644)
	b, _ := os.ReadFile(doc)
	// The path goes into a JSON string: escaped (a Windows path's
	// backslashes would otherwise be escapes).
	quoted, _ := json.Marshal(outside)
	b = []byte(strings.Replace(string(b), `".clia/agents/gemini/gemini@google-ai-swift.persona.agent.triad.md"`, string(quoted), 1))
	b = []byte(strings.Replace(string(b), "gemini@google-ai-swift.system-instructions-compact.agent.triad.md", "gone.md", 1))
	os.WriteFile(doc, b, 0o644)
	p, err = BuildProfile(Options{Path: ws}, "gemini", triad.Agent)
	if err != nil {
		t.Fatal(err)
	}
	texts, warnings = p.PromptTexts()
	if len(texts) != 0 || len(warnings) != 2 || !strings.Contains(warnings[0], "is outside the workspace") || !strings.Contains(warnings[1], "gone.md is missing; not in the prompt") {
		t.Errorf("texts %+v, warnings %q", texts, warnings)
	}
}
