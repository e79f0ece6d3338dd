package agents

import (
	"strings"
	"testing"
)

func TestRosterCell(t *testing.T) {
	for line, want := range map[string]string{
		"| Tau | Leads | `.clia/agents/tau/` |":     ".clia/agents/tau",
		"| A | B | `x/y/` |\r":                      "x/y",
		"| Agent | Summary | Path |":                "",
		"| ----- | ------- | -------- |":            "",
		"See `.clia/agents/tau/` for more":          "",
		"| a | `b|c/` |":                            "",
		"| A | `tau/` |":                            "",
		"  | Tau | x | `.wrkstrm/agents/tau/`  |  ": ".wrkstrm/agents/tau",
	} {
		got, ok := rosterCell(line)
		if got != want || ok != (want != "") {
			t.Errorf("rosterCell(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
}

// Any line of an AGENTS.md: no panic, and a cell is a slash path without
// the table's or the code span's delimiters.
func FuzzRosterCell(f *testing.F) {
	for _, s := range []string{"| Tau | Leads | `.clia/agents/tau/` |", "| `/` |", "|``/`|", "| a | `../../x/` |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cell, ok := rosterCell(line)
		if ok && (cell == "" || strings.ContainsAny(cell, "|`") || !strings.Contains(cell, "/")) {
			t.Fatalf("rosterCell(%q) = %q", line, cell)
		}
	})
}
