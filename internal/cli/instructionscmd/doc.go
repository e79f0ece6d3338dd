// Package instructionscmd is the `lineage instructions` command group:
// the initial AGENTS.md chain, the resolver for paths work moves to, the
// explanation of a chain, and resuming a saved session.
package instructionscmd
