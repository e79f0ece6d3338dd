package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
)

func (h *Host) readSkills() {
	if v := h.Var(EnvSkillsUser); v != "" {
		b, err := instructions.ParseBool(v)
		if err != nil {
			h.skillsWarnings = []string{fmt.Sprintf("ignoring %s=%q: want 1, true, 0 or false", EnvSkillsUser, h.Getenv(EnvSkillsUser))}
		} else {
			h.skillsUser, h.skillsUserSet = b, true
		}
	}
	if v := h.Getenv(EnvSkillsPath); strings.TrimSpace(v) != "" {
		for _, p := range filepath.SplitList(v) {
			if p = strings.TrimSpace(p); p != "" {
				h.skillsPath = append(h.skillsPath, p)
			}
		}
	}
}

// Skills are the skill settings the environment gives.
type Skills struct {
	// User is LINEAGE_SKILLS_USER: also the user's folders; UserSet says
	// the variable gave a valid value (a --user flag still wins).
	User, UserSet bool
	// Extra are LINEAGE_SKILLS_PATH's folders, absolute.
	Extra []string
	// CacheDir is the metadata cache's directory in the state directory,
	// "" when there is none.
	CacheDir string
	// Warnings name variables that were ignored.
	Warnings []string
}

// Skills returns the skill settings, LINEAGE_SKILLS_PATH's folders made
// absolute against cwd.
func (h *Host) Skills(cwd string) Skills {
	s := Skills{User: h.skillsUser, UserSet: h.skillsUserSet, CacheDir: h.StatePath("skills-cache"), Warnings: h.skillsWarnings}
	for _, p := range h.skillsPath {
		s.Extra = append(s.Extra, fsx.Abs(cwd, p))
	}
	return s
}

// SkillsUser is whether to list the user's skill folders: the flag when
// it was given (changed), else LINEAGE_SKILLS_USER, else no.
func (s Skills) SkillsUser(flag, changed bool) bool {
	if changed || !s.UserSet {
		return flag
	}
	return s.User
}

// Instructions returns the instruction settings of the CODELIA_AGENTS_*
// variables (only those set and not empty) and the warnings about those
// ignored.
func (h *Host) Instructions() (instructions.Settings, []string) {
	return h.instructions, h.instructionsWarnings
}
