package journal

import (
	"github.com/agentlineage/lineage/triad"
)

// migrateContributions lifts the legacy contribution shapes of an agency
// document's entries to CLIA's grouped form {by, types: [{type, weight,
// evidence}]}, as CLIA's `agents migrate-agency-contributions` does:
//   - a list of type names ["code", "doc"] becomes one group per
//     participant of the entry (else the agent, slug) holding every type
//     with weight 1 and evidence "migrated";
//   - a list of {agent, type[, weight][, evidence]} objects (identity
//     documents of 2026-03) is grouped by agent in first-seen order, each
//     item keeping its weight and evidence (1 and "migrated" when absent)
//     and any other key.
//
// Unlike CLIA, participants stay (nothing is removed), and an entry whose
// contributions mix shapes, or hold anything else, is left alone.
func migrateContributions(doc *triad.Value, slug string) bool {
	entries := doc.Get("entries")
	if entries == nil || entries.Kind != triad.Array {
		return false
	}
	changed := false
	for _, e := range entries.Items {
		c := e.Get("contributions")
		if c == nil || c.Kind != triad.Array || len(c.Items) == 0 {
			continue
		}
		var groups *triad.Value
		switch {
		case allStrings(c):
			groups = groupsFromNames(e, c, slug)
		case allAgentTyped(c):
			groups = groupsFromAgentTyped(c)
		}
		if groups != nil {
			e.Set("contributions", groups)
			changed = true
		}
	}
	return changed
}

func groupsFromNames(entry, c *triad.Value, slug string) *triad.Value {
	var actors []string
	if p := entry.Get("participants"); p != nil && p.Kind == triad.Array && allStrings(p) {
		for _, it := range p.Items {
			if it.Text != "" {
				actors = append(actors, it.Text)
			}
		}
	}
	if len(actors) == 0 {
		actors = []string{slug}
	}
	out := triad.NewArray()
	for _, a := range actors {
		types := triad.NewArray()
		for _, it := range c.Items {
			if it.Text == "" {
				continue
			}
			types.Items = append(types.Items, contributionItem(triad.NewString(it.Text), nil, nil))
		}
		g := triad.NewObject()
		g.Set("by", triad.NewString(a))
		g.Set("types", types)
		out.Items = append(out.Items, g)
	}
	return out
}

// allAgentTyped: every element is an object with string "agent" and
// "type" and no "by" or "types".
func allAgentTyped(c *triad.Value) bool {
	for _, it := range c.Items {
		if it.Kind != triad.Object || it.Get("by") != nil || it.Get("types") != nil {
			return false
		}
		if a, t := it.Get("agent"), it.Get("type"); a == nil || t == nil || a.Kind != triad.String || t.Kind != triad.String || a.Text == "" {
			return false
		}
	}
	return true
}

func groupsFromAgentTyped(c *triad.Value) *triad.Value {
	out := triad.NewArray()
	byAgent := map[string]*triad.Value{}
	for _, it := range c.Items {
		agent := it.Str("agent")
		g := byAgent[agent]
		if g == nil {
			g = triad.NewObject()
			g.Set("by", triad.NewString(agent))
			g.Set("types", triad.NewArray())
			byAgent[agent] = g
			out.Items = append(out.Items, g)
		}
		item := contributionItem(it.Get("type"), it.Get("weight"), it.Get("evidence"))
		for _, m := range it.Members {
			switch m.Key {
			case "agent", "type", "weight", "evidence":
			default:
				item.Set(m.Key, m.Value)
			}
		}
		types := g.Get("types")
		types.Items = append(types.Items, item)
	}
	return out
}

func contributionItem(typ, weight, evidence *triad.Value) *triad.Value {
	o := triad.NewObject()
	o.Set("type", typ)
	if weight == nil || weight.Kind == triad.Null {
		weight = &triad.Value{Kind: triad.Number, Text: "1"}
	}
	o.Set("weight", weight)
	if evidence == nil || evidence.Kind != triad.String || evidence.Text == "" {
		evidence = triad.NewString("migrated")
	}
	o.Set("evidence", evidence)
	return o
}
