// Package contextcmd is the `lineage context` command: one model request
// composed from the AGENTS.md chain, the skills catalog, an agent's merged
// profile and a tract's history under one budget.
package contextcmd
