// Package sessionscmd is the `lineage sessions` command group: import the
// sessions of coding harnesses (Claude Code today) into a user-level tract
// store, and list, show, log and search them.
package sessionscmd
