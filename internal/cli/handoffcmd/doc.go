// Package handoffcmd is the `lineage handoff` command: the start of a new
// session composed from an imported one, printed for a model API or left
// pending for a harness's next session start.
package handoffcmd
