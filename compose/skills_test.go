package compose

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/skills"
)

// The skills catalog is pinned right after the instructions, with the
// provenance of every skill, and counts toward the pinned part the budget
// never cuts.
func TestSkillsInPinnedPart(t *testing.T) {
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{
		".git/HEAD":                       "x",
		"AGENTS.md":                       "Run the tests.\n",
		".agents/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\nTag it.",
		".claude/skills/review/SKILL.md":  "---\nname: review\ndescription: Review a change.\n---\nRead it.",
	})
	o := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir}, Skills: &skills.Options{}, Format: FormatText}
	res, err := Compile(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blocks) != 2 || res.Blocks[0].Source != SourceInstructions || res.Blocks[1].Source != SourceSkills || res.Blocks[1].Part != PartSystem {
		t.Fatalf("blocks = %+v", res.Blocks)
	}
	b := res.Blocks[1]
	if len(b.Skills) != 2 || b.Skills[0].Name != "release" || b.Skills[0].Path != filepath.Join(dir, ".agents/skills/release/SKILL.md") ||
		b.Skills[0].Scope != "project" || b.Skills[1].Kind != ".claude/skills" || b.Skills[0].Tokens == 0 || b.Skills[0].MtimeNs == 0 {
		t.Errorf("skills = %+v", b.Skills)
	}
	if !strings.Contains(res.Messages[1].Content, "<name>release</name>") || res.SystemTokens != res.Blocks[0].Tokens+b.Tokens {
		t.Errorf("message %q, system tokens %d", res.Messages[1].Content, res.SystemTokens)
	}
	o.Budget = res.Blocks[0].Tokens + 5
	_, err = Compile(context.Background(), o)
	var be *BudgetError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "skills release") {
		t.Errorf("budget error = %v", err)
	}
	o.Budget, o.Skills = 0, nil
	if res, _ := Compile(context.Background(), o); len(res.Blocks) != 1 {
		t.Errorf("without skills: %d blocks", len(res.Blocks))
	}
}
