// Package skillscmd is the `lineage skills` command group: the Agent
// Skills (SKILL.md) that apply to a directory — list, show, search, lint.
package skillscmd
