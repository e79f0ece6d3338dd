package hooks

import (
	"fmt"
	"strings"
)

// Diff is a unified diff of two versions of a file named name, "" when
// they are equal. The edits Install and Uninstall make are contiguous or
// close together, so one hunk from the first to the last changed line,
// with three lines of context, shows them all.
func Diff(name string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	a, b := splitLines(string(before)), splitLines(string(after))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const context = 3
	lo := max(pre-context, 0)
	aHi, bHi := min(len(a)-suf+context, len(a)), min(len(b)-suf+context, len(b))
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", name, name)
	fmt.Fprintf(&w, "@@ -%s +%s @@\n", hunkRange(lo, aHi-lo), hunkRange(lo, bHi-lo))
	for _, l := range a[lo:pre] {
		w.WriteString(" " + l)
	}
	for _, l := range a[pre : len(a)-suf] {
		w.WriteString("-" + l)
	}
	for _, l := range b[pre : len(b)-suf] {
		w.WriteString("+" + l)
	}
	for _, l := range a[len(a)-suf : aHi] {
		w.WriteString(" " + l)
	}
	return w.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s after each newline; a last line without one gets
// the marker diff(1) uses.
func splitLines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if !strings.HasSuffix(l, "\n") {
			l += "\n\\ No newline at end of file\n"
		}
		out = append(out, l)
	}
	return out
}
