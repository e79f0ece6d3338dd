package tract

import (
	"context"
)

// BlameEntry maps one compiled message to where it came from.
type BlameEntry struct {
	Index  int    `json:"index"`
	Role   string `json:"role"`
	Type   Type   `json:"type"`
	Commit Hash   `json:"commit"`
	// Tract is the author tract's name.
	Tract string `json:"tract"`
	// SpawnPath is the author's spawn ancestry, root first, ending with
	// the author: the agents that led to this content.
	SpawnPath []string `json:"spawnPath"`
	Summary   string   `json:"summary"`
	// Summarizes lists, for a summary of a compressed range, the commits
	// whose messages it stands in for.
	Summarizes []Hash `json:"summarizes,omitempty"`
}

// Blame compiles the tract and maps every message to its commit, author
// tract and spawn path.
func (r *Repo) Blame(ctx context.Context, tractName string, o CompileOptions) ([]BlameEntry, error) {
	res, err := r.Compile(ctx, tractName, o)
	if err != nil {
		return nil, err
	}
	paths := map[string][]string{}
	out := make([]BlameEntry, 0, len(res.Messages))
	for i := range res.Messages {
		m := &res.Messages[i]
		path, ok := paths[m.TractID]
		if !ok {
			if path, err = r.spawnPath(ctx, m.TractID); err != nil {
				return nil, err
			}
			paths[m.TractID] = path
		}
		out = append(out, m.Blame(i, path))
	}
	return out, nil
}

// Blame is the blame entry of m, the index-th message of a compile,
// whose author's spawn path is path.
func (m *Message) Blame(index int, path []string) BlameEntry {
	return BlameEntry{Index: index, Role: m.Role, Type: m.Type, Commit: m.Commit, Tract: m.Tract, SpawnPath: path,
		Summary: summary(Content{Text: m.Content, ToolCalls: m.ToolCalls}), Summarizes: m.Summarizes}
}

// SpawnPath lists the names of the spawn ancestors of the tract with id
// (a [Message]'s TractID), root first, ending with the tract itself.
func (r *Repo) SpawnPath(ctx context.Context, id string) ([]string, error) {
	return r.spawnPath(ctx, id)
}

// spawnPath lists the names of a tract's spawn ancestors, root first,
// ending with the tract itself.
func (r *Repo) spawnPath(ctx context.Context, id string) ([]string, error) {
	var path []string
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		t, err := r.store.TractByID(ctx, id)
		if err != nil {
			path = append(path, id)
			break
		}
		path = append(path, t.Name)
		id = ""
		if t.Spawn != nil {
			id = t.Spawn.Parent
		}
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nil
}
