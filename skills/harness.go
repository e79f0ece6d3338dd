package skills

import "slices"

// harnessFolders are the skill folders each harness reads by itself, in
// the project and in the home directory (their documentation; see
// docs/skills.md): Claude Code .claude/skills, Gemini CLI .gemini/skills
// and .agents/skills, Codex CLI .agents/skills and .codex/skills, Cursor
// .cursor/skills, opencode .opencode/skills (~/.config/opencode/skills),
// .claude/skills and .agents/skills.
// (A switch, not a map: nothing allocated at init.)
func harnessFolders(harness string) []string {
	switch harness {
	case "claude":
		return []string{".claude/skills"}
	case "gemini":
		return []string{".gemini/skills", ".agents/skills"}
	case "codex":
		return []string{".agents/skills", ".codex/skills"}
	case "cursor":
		return []string{".cursor/skills"}
	case "opencode":
		return []string{".opencode/skills", ".config/opencode/skills", ".claude/skills", ".agents/skills"}
	}
	return nil
}

// ListedBy reports whether the harness (claude, codex, gemini) shows s in
// its own skills catalog: a catalog lineage sends it leaves s out. A
// configured folder (scope extra) is lineage's own, never the harness's.
func ListedBy(harness string, s Skill) bool {
	return s.Scope != ScopeExtra && slices.Contains(harnessFolders(harness), s.Kind)
}
