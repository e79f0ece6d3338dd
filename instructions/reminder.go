package instructions

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/fsx"
)

// ResolveReminder renders the agents.resolve.paths reminder for files, or
// "" when there are none.
func ResolveReminder(files []File) string {
	return ResolveReminderNamed(files, nil)
}

// NamesLabel is how texts name the instruction files of names (the
// configured file names): "AGENTS.md" for none, else the names joined
// with "/" ("CLAUDE.md/AGENTS.md").
func NamesLabel(names []string) string {
	if len(names) == 0 {
		return "AGENTS.md"
	}
	return fsx.LineSafe(strings.Join(names, "/"))
}

// ResolveReminderNamed is [ResolveReminder] for a session resolving names.
func ResolveReminderNamed(files []File, names []string) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<system-reminder type=\"agents.resolve.paths\">\nAdditional " + NamesLabel(names) + " may apply for this path:\n")
	for _, f := range files {
		writeFileLine(&b, f)
	}
	b.WriteString("Read and apply these files before editing files in this scope.\n</system-reminder>")
	return b.String()
}

func writeFileLine(b *strings.Builder, f File) {
	b.WriteString("- ")
	b.WriteString(fsx.LineSafe(f.Path))
	b.WriteString(" (mtime: ")
	b.WriteString(strconv.FormatInt(f.MtimeMs, 10))
	b.WriteString(")\n")
}

// MarkersJSON renders markers as a compact JSON array, as the resume diff
// prints them.
func MarkersJSON(m []string) string {
	if m == nil {
		m = []string{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "[]"
	}
	return string(b)
}
