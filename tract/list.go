package tract

import (
	"context"
	"sort"
	"strings"
)

// TractInfo is a tract with where its HEAD is and its spawn parent's name.
type TractInfo struct {
	Tract  `json:",inline"`
	Branch string `json:"branch,omitempty"`
	Head   Hash   `json:"head,omitempty"`
	// Parent is the spawn parent's name ("" for a root tract).
	Parent string `json:"parent,omitempty"`
}

// List lists live tracts with their heads, oldest first.
func (r *Repo) List(ctx context.Context) ([]TractInfo, error) {
	tracts, err := r.store.Tracts(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, t := range tracts {
		names[t.ID] = t.Name
	}
	out := make([]TractInfo, 0, len(tracts))
	for _, t := range tracts {
		h, err := readHead(ctx, r.store, t.ID)
		if err != nil {
			return nil, err
		}
		info := TractInfo{Tract: t, Branch: h.Branch, Head: h.Commit}
		if t.Spawn != nil {
			info.Parent = names[t.Spawn.Parent]
			if info.Parent == "" {
				if pt, err := r.store.TractByID(ctx, t.Spawn.Parent); err == nil {
					info.Parent = pt.Name + " (removed)"
				}
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// SpawnTree draws tracts as a tree of spawn relations: roots first, each
// child under its parent with its mode and purpose.
func SpawnTree(list []TractInfo) string {
	children := map[string][]TractInfo{}
	live := map[string]bool{}
	for _, t := range list {
		live[t.ID] = true
	}
	var roots []TractInfo
	for _, t := range list {
		if t.Spawn != nil && live[t.Spawn.Parent] {
			children[t.Spawn.Parent] = append(children[t.Spawn.Parent], t)
		} else {
			roots = append(roots, t)
		}
	}
	byName := func(ts []TractInfo) {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	}
	byName(roots)
	var b strings.Builder
	var walk func(t TractInfo, prefix string, last, root bool)
	walk = func(t TractInfo, prefix string, last, root bool) {
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
