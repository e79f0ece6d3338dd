package clienv

import (
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/config"
	"github.com/agentlineage/lineage/skills"
)

// HookSkills are the skills a hook's session start lists: the same folders
// and environment as the skills commands.
func HookSkills(env *Env, cwd, home string, root instructions.RootConfig) *skills.Options {
	s := SkillsEnv(env, cwd)
	return &skills.Options{Home: home, Root: root, User: s.User, Extra: s.Extra, CacheDir: s.CacheDir}
}

// SkillsEnv is the skill settings of the environment (LINEAGE_SKILLS_USER,
// LINEAGE_SKILLS_PATH made absolute against cwd, the metadata cache in the
// state directory), warning on stderr about a variable it ignores.
func SkillsEnv(env *Env, cwd string) config.Skills {
	s := env.Host().Skills(cwd)
	InstructionsWarn(env, s.Warnings)
	return s
}
