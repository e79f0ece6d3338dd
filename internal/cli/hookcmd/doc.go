// Package hookcmd is the `lineage hook` command group: answering a
// harness's hook events with AGENTS.md context, and installing, removing and
// reporting lineage's hooks in the harnesses' settings.
package hookcmd
