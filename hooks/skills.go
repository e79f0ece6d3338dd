package hooks

import (
	"slices"

	"github.com/agentlineage/lineage/skills"
)

// nativeSkillFolders are the skill folders each harness reads by itself
// (its documentation, see docs/skills.md): a skill found in one of them is
// already in the harness's own catalog, so the session start does not list
// it again.
var nativeSkillFolders = map[string][]string{
	"claude": {".claude/skills"},
	"gemini": {".gemini/skills", ".agents/skills"},
	"codex":  {".agents/skills", ".codex/skills"},
}

// NativeSkill reports whether harness h shows skill s in its own catalog.
func NativeSkill(h *Harness, s skills.Skill) bool {
	return s.Scope != skills.ScopeExtra && slices.Contains(nativeSkillFolders[h.Name], s.Kind)
}

// skillsStart is the catalog block of a session start: the skills for cwd
// that h does not list itself, "" when there are none (or skills are off).
func skillsStart(h *Harness, cwd string, opts Options, warnings *[]string) string {
	if opts.Skills == nil {
		return ""
	}
	o := *opts.Skills
	o.Cwd = cwd
	cat, err := skills.Discover(o)
	if err != nil {
		*warnings = append(*warnings, "skills: "+err.Error())
		return ""
	}
	defer cat.Close()
	return cat.Block(skills.BlockOptions{
		Load: "read the SKILL.md at its location",
		Omit: func(s skills.Skill) bool { return NativeSkill(h, s) },
	}).Text
}
