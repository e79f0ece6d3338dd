package tracttext

import (
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// LogLine is the one-line text of a log entry: short hash, refs,
// operation, type/role and summary, and the commit message.
func LogLine(e tract.LogEntry) string {
	var b strings.Builder
	b.WriteString(e.Hash.Short())
	if len(e.Refs) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(e.Refs, ", "))
	}
	switch e.Operation {
	case tract.OpMerge:
		fmt.Fprintf(&b, " merge: %s", e.Message)
		return b.String()
	case tract.OpEdit:
		fmt.Fprintf(&b, " edit %s", e.EditTarget.Short())
	case tract.OpCompress:
		fmt.Fprintf(&b, " compress ..%s", e.EditTarget.Short())
	}
	fmt.Fprintf(&b, " %s", e.Type)
	if e.Role != "" && e.Type != tract.TypeInstruction {
		fmt.Fprintf(&b, "/%s", e.Role)
	}
	fmt.Fprintf(&b, ": %s", e.Summary)
	if e.Message != "" {
		fmt.Fprintf(&b, " — %s", e.Message)
	}
	return b.String()
}

// Graph draws log entries (newest first) as a text DAG: one column per line
// of history, "*" for a commit, "|" for a line passing by, "\" where a merge
// opens a line for its other parent and "/" where lines join again. A
// filtered log's entries are drawn to their GraphParents.
func Graph(entries []tract.LogEntry) string {
	var b strings.Builder
	var cols []tract.Hash // the commit each column waits for
	for _, e := range entries {
		col := -1
		for i := 0; i < len(cols); i++ {
			if cols[i] != e.Hash {
				continue
			}
			if col < 0 {
				col = i
				continue
			}
			// Another line waited for this commit: it joins here.
			cols = append(cols[:i], cols[i+1:]...)
			i--
			b.WriteString(strings.Repeat("| ", len(cols)-1) + "|/\n")
		}
		if col < 0 {
			cols = append(cols, e.Hash)
			col = len(cols) - 1
		}
		b.WriteString(row(len(cols), col, "*") + LogLine(e) + "\n")
		parents := e.Parents
		if e.GraphParents != nil {
			parents = e.GraphParents
		}
		if len(parents) == 0 {
			cols = append(cols[:col], cols[col+1:]...)
			continue
		}
		cols[col] = parents[0]
		for _, p := range parents[1:] {
			cols = append(cols, p)
			b.WriteString(strings.TrimRight(row(len(cols)-1, -1, ""), " ") + "\\\n")
		}
	}
	return b.String()
}

// row is one line of n columns, mark in column at and "|" in the others.
func row(n, at int, mark string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i == at {
			b.WriteString(mark + " ")
		} else {
			b.WriteString("| ")
		}
	}
	return b.String()
}

// Dot renders log entries as a Graphviz digraph, edges child → parent (a
// merge's other parents dashed).
func Dot(entries []tract.LogEntry) string {
	var b strings.Builder
	b.WriteString("digraph tract {\n  rankdir=BT;\n  node [shape=box, fontname=monospace];\n")
	for _, e := range entries {
		label := e.Hash.Short() + "\\n" + strings.ReplaceAll(strings.ReplaceAll(summaryOf(e), `\`, `\\`), `"`, `\"`)
		fmt.Fprintf(&b, "  %q [label=\"%s\"];\n", string(e.Hash), label)
	}
	for _, e := range entries {
		for i, p := range e.Parents {
			style := ""
			if i > 0 {
				style = " [style=dashed]"
			}
			fmt.Fprintf(&b, "  %q -> %q%s;\n", string(e.Hash), string(p), style)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// summaryOf is a Dot node's label below the hash.
func summaryOf(e tract.LogEntry) string {
	if e.Operation == tract.OpMerge {
		return e.Message
	}
	return string(e.Type) + ": " + e.Summary
}
