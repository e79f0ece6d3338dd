package tracttext

import (
	"sort"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// SpawnTree draws tracts as a tree of spawn relations: roots first, each
// child under its parent with its mode and purpose. A tract whose parent
// was removed is a root naming that parent.
func SpawnTree(list []tract.TractInfo) string {
	children := map[string][]tract.TractInfo{}
	live := map[string]bool{}
	for _, t := range list {
		live[t.ID] = true
	}
	var roots []tract.TractInfo
	for _, t := range list {
		if t.Spawn != nil && live[t.Spawn.Parent] {
			children[t.Spawn.Parent] = append(children[t.Spawn.Parent], t)
		} else {
			roots = append(roots, t)
		}
	}
	byName(roots)
	var b strings.Builder
	var walk func(t tract.TractInfo, prefix string, last, root bool)
	walk = func(t tract.TractInfo, prefix string, last, root bool) {
		line, next := "", prefix
		if !root {
			branch := "├── "
			next = prefix + "│   "
			if last {
				branch, next = "└── ", prefix+"    "
			}
			line = prefix + branch
		}
		line += t.Name
		if t.Spawn != nil {
			line += " [" + string(t.Spawn.Mode) + "] " + t.Spawn.Purpose
			if !live[t.Spawn.Parent] {
				line += " (parent " + t.Parent + ")"
			}
		}
		b.WriteString(line + "\n")
		kids := children[t.ID]
		byName(kids)
		for i, k := range kids {
			walk(k, next, i == len(kids)-1, false)
		}
	}
	for _, r := range roots {
		walk(r, "", true, true)
	}
	return b.String()
}

// byName sorts tracts by name.
func byName(ts []tract.TractInfo) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
}
