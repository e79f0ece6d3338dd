package tract

import "context"

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
