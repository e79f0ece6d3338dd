package clienv

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/skills"
)

// Environment variables of the skills commands (besides the instructions'
// CODELIA_AGENTS_ROOT and CODELIA_AGENTS_MARKERS, which find the root).
const (
	envSkillsPath = "LINEAGE_SKILLS_PATH" // more skill folders, OS list separator
	envSkillsUser = "LINEAGE_SKILLS_USER" // 1/true: also the user's folders
)

// SkillsEnv reads LINEAGE_SKILLS_USER (user, and whether it was set) and
// LINEAGE_SKILLS_PATH (more folders, made absolute against cwd).
func SkillsEnv(env *Env, cwd string) (user, userSet bool, extra []string) {
	if v, ok := env.Lookup(envSkillsUser); ok && strings.TrimSpace(v) != "" {
		b, err := instructions.ParseBool(v)
		if err != nil {
			InstructionsWarn(env, []string{fmt.Sprintf("ignoring %s=%q: want 1, true, 0 or false", envSkillsUser, v)})
		} else {
			user, userSet = b, true
		}
	}
	if v := env.Getenv(envSkillsPath); strings.TrimSpace(v) != "" {
		for _, p := range filepath.SplitList(v) {
			if p = strings.TrimSpace(p); p != "" {
				extra = append(extra, fsx.Abs(cwd, p))
			}
		}
	}
	return user, userSet, extra
}

// SkillsCacheDir is the metadata cache's directory in the user's state
// directory, "" when there is none.
func SkillsCacheDir(env *Env) string {
	dir, err := fsx.Host.StateDir(env.Getenv)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "lineage", "skills-cache")
}

// HookSkills are the skills a hook's session start lists: the same folders
// and environment as the skills commands.
func HookSkills(env *Env, cwd, home string, root instructions.RootConfig) *skills.Options {
	user, _, extra := SkillsEnv(env, cwd)
	return &skills.Options{Home: home, Root: root, User: user, Extra: extra, CacheDir: SkillsCacheDir(env)}
}
