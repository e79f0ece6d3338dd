package tract

import (
	"context"
	"slices"
)

// Relations are what a window of a tract's log says of its commits beyond
// the entries themselves, for a reader that shows them side by side (the
// web face's graph): which annotation each commit has from the tract, and
// where each compress commit's summary starts. Edits and spawns need no
// read: an entry's EditTarget and the tracts' Spawn say them.
type Relations struct {
	// Newest is the newest annotation of each annotated commit by the
	// viewer.
	Newest map[Hash]Annotation
	// From is the oldest commit each compress commit's summary replaces.
	From map[Hash]Hash
}

// Relations reads the relations of entries (a window of the log of the
// tract whose id is viewer) in at most two queries, whatever the window:
// the viewer's annotations of the entries, and the contents of the
// compress commits among them (none without one).
func (r *Repo) Relations(ctx context.Context, viewer string, entries []LogEntry) (Relations, error) {
	rel := Relations{Newest: map[Hash]Annotation{}, From: map[Hash]Hash{}}
	if len(entries) == 0 {
		return rel, nil
	}
	hashes := make([]Hash, len(entries))
	var compressed []Hash
	for i, e := range entries {
		hashes[i] = e.Hash
		if e.Operation == OpCompress && e.Content != "" {
			compressed = append(compressed, e.Content)
		}
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{Viewers: []string{viewer}, Commits: hashes})
	if err != nil {
		return Relations{}, err
	}
	for _, a := range anns {
		if old, ok := rel.Newest[a.Commit]; !ok || a.Seq > old.Seq {
			rel.Newest[a.Commit] = a
		}
	}
	if len(compressed) == 0 {
		return rel, nil
	}
	slices.Sort(compressed)
	contents, err := r.contents(ctx, slices.Compact(compressed))
	if err != nil {
		return Relations{}, err
	}
	for _, e := range entries {
		if c, ok := contents[e.Content]; ok && e.Operation == OpCompress {
			rel.From[e.Hash] = c.From
		}
	}
	return rel, nil
}
