// Package skills is the Agent Skills catalog (agentskills.io): it discovers
// SKILL.md files the way package instructions finds AGENTS.md (the same
// root estimation; every directory from the root down to the working
// directory), parses their front matter, checks them against the standard,
// searches the catalog and loads a skill's body or one of its files.
//
// Discovery looks in each directory of the chain for the skill folders the
// harnesses read ([DefaultProjectFolders]: .agents/skills first, then
// .claude/skills, .codex/skills, .gemini/skills, .opencode/skills,
// .github/skills, .cursor/skills), then in configured extra folders, then, when asked to,
// in the user's folders ([DefaultUserFolders]). Inside a folder a skill is
// any directory holding a SKILL.md, at any depth up to [MaxDepth]; a skill
// folder's own subdirectories are its resources, not more skills. Two
// skills with one name: the nearer one (deeper in the chain; in one
// directory the earlier folder; project before extra before user) is in
// the catalog, the other is reported as shadowed.
//
// Every file is opened through an [os.Root]: the project root for project
// folders, the folder itself for extra and user folders. A symbolic link
// that leaves it, a FIFO or device, a file over the size limit and a name
// that is not valid UTF-8 are reported as problems, never followed, opened
// or read.
//
// The catalog a harness or the MCP server shows the model is [Block]: the
// usage rule and one entry per skill, bounded, with a note when cut.
// [Tracker] remembers per session which skill versions were loaded, so a
// second load of an unchanged skill answers "already loaded".
package skills
