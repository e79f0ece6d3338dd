package hooks

import (
	"github.com/agentlineage/lineage/skills"
)

// NativeSkill reports whether harness h shows skill s in its own catalog
// (see [skills.ListedBy]).
func NativeSkill(h *Harness, s skills.Skill) bool { return skills.ListedBy(h.Name, s) }

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
