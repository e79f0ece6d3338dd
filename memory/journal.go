package memory

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

// JournalEntries is how many of an agent's newest agency journal entries
// count as its memory.
const JournalEntries = 5

// Journal is the newest [JournalEntries] entries of the agency journal of
// slug's agent seen from dir (its merged agency document), as agent
// memories with the source "journal": each entry's summary (else its
// title), its time as the making. An agent without a context, or without
// an agency document, has none; why is the warning.
func Journal(opts agents.Options, slug string) (out []Memory, warning string) {
	out = []Memory{}
	if slug == "" {
		return out, ""
	}
	p, err := agents.BuildProfile(opts, slug, triad.Agency)
	if err != nil {
		return out, "agency journal of " + slug + ": " + err.Error()
	}
	entries := p.Merged.Get("entries")
	if entries == nil || entries.Kind != triad.Array {
		return out, ""
	}
	file := ""
	if n := len(p.Layers); n > 0 {
		file = p.Layers[n-1].File
	}
	for _, e := range entries.Items {
		text := strings.TrimSpace(e.Str("summary"))
		if text == "" {
			text = strings.TrimSpace(e.Str("title"))
		}
		if text == "" {
			continue
		}
		if title := strings.TrimSpace(e.Str("title")); title != "" && !strings.HasPrefix(text, title) {
			text = title + ": " + text
		}
		when, _ := time.Parse(time.RFC3339, strings.TrimSpace(e.Str("timestamp")))
		out = append(out, Memory{Scope: Agent, Slug: slug, Text: text, Source: "journal", File: file, Created: when.UTC()})
	}
	slices.SortStableFunc(out, func(a, b Memory) int { return cmp.Compare(b.Created.Unix(), a.Created.Unix()) })
	if len(out) > JournalEntries {
		out = out[:JournalEntries]
	}
	return out, ""
}
