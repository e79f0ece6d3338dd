// Package memorycmd is the `lineage memory` command group: memories across
// sessions and harnesses (package memory) added, listed, shown, edited and
// forgotten from the command line.
package memorycmd
