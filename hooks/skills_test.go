package hooks

import (
	"strings"
	"testing"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/skills"
)

// A session start lists only the skills the harness does not read itself:
// nothing is sent twice.
func TestSkillsStartOmitsNative(t *testing.T) {
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{
		".git/HEAD":                       "x",
		".agents/skills/shared/SKILL.md":  "---\nname: shared\ndescription: In .agents.\n---\nx",
		".claude/skills/claudes/SKILL.md": "---\nname: claudes\ndescription: In .claude.\n---\nx",
		".github/skills/copilot/SKILL.md": "---\nname: copilot\ndescription: In .github.\n---\nx",
	})
	opts := Options{Skills: &skills.Options{Root: instructions.DefaultConfig().Root}}
	for h, want := range map[*Harness][]string{
		Claude: {"copilot", "shared"},
		Gemini: {"claudes", "copilot"},
		Codex:  {"claudes", "copilot"},
	} {
		var warnings []string
		text := skillsStart(h, dir, opts, &warnings)
		var got []string
		for _, n := range []string{"claudes", "copilot", "shared"} {
			if strings.Contains(text, "<name>"+n+"</name>") {
				got = append(got, n)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || len(warnings) > 0 {
			t.Errorf("%s: listed %v, want %v (%v)", h.Name, got, want, warnings)
		}
		if !strings.Contains(text, "load it first: read the SKILL.md at its location;") {
			t.Errorf("%s: no load rule:\n%s", h.Name, text)
		}
	}
	if got := skillsStart(Claude, dir, Options{}, nil); got != "" {
		t.Errorf("skills off: %q", got)
	}
}
