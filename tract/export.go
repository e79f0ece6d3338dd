package tract

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The export format is JSON Lines, one record per line, each an object with
// a "kind" (see docs/tract.md, "Export and import"):
//
//	{"kind":"lineage-export","version":1}
//	{"kind":"tract","id","name","created","spawn"?}            by created, then name
//	{"kind":"blob","hash","data":{…}}                         by hash; data is the blob's canonical JSON
//	{"kind":"commit","hash","parents","content"?,…}           parents before children, then by hash
//	{"kind":"ref","tract","name","value"}                     by tract id, then name
//	{"kind":"annotation","viewer","commit","priority",…}      in the order they were made
//
// The same data always exports to the same bytes, whatever the store.

// ExportVersion is the version of the export format written.
const ExportVersion = 1

const exportHeader = "lineage-export"

// exportRecord is one line of an export.
type exportRecord struct {
	Kind    string `json:"kind"`
	Version int    `json:"version,omitzero"`
	// tract
	ID      string        `json:"id,omitempty"`
	Name    string        `json:"name,omitempty"`
	Created *time.Time    `json:"created,omitempty"`
	Spawn   *SpawnPointer `json:"spawn,omitempty"`
	// blob and commit
	Hash       Hash           `json:"hash,omitempty"`
	Data       jsontext.Value `json:"data,omitzero"`
	Parents    []Hash         `json:"parents,omitempty"`
	Content    Hash           `json:"content,omitempty"`
	Operation  Operation      `json:"operation,omitempty"`
	EditTarget Hash           `json:"editTarget,omitempty"`
	Time       *time.Time     `json:"time,omitempty"`
	Message    string         `json:"message,omitempty"`
	Meta       jsontext.Value `json:"meta,omitzero"`
	// ref (Tract, Name, Value) and annotation
	Tract    string   `json:"tract,omitempty"`
	Value    string   `json:"value,omitempty"`
	Viewer   string   `json:"viewer,omitempty"`
	Commit   Hash     `json:"commit,omitempty"`
	Priority Priority `json:"priority,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Head     Hash     `json:"head,omitempty"`
}

// ExportOptions select what Export writes.
type ExportOptions struct {
	// Tract exports one tract: its refs, annotations and every commit its
	// refs reach. "" with All exports the whole store.
	Tract string
	All   bool
}

// ExportReport counts what was written.
type ExportReport struct {
	Tracts      int `json:"tracts"`
	Blobs       int `json:"blobs"`
	Commits     int `json:"commits"`
	Refs        int `json:"refs"`
	Annotations int `json:"annotations"`
}

// Export writes tracts with their commits, blobs, refs, annotations and
// spawn records to w in the export format. Reflogs are not exported.
func (r *Repo) Export(ctx context.Context, w io.Writer, o ExportOptions) (ExportReport, error) {
	if (o.Tract == "") == !o.All {
		return ExportReport{}, &ValidationError{Field: "tract", Reason: "export one tract or all of them"}
	}
	set, err := r.gatherExport(ctx, o)
	if err != nil {
		return ExportReport{}, err
	}
	return set.write(w)
}

// exportSet is everything one export writes, gathered before the first
// byte is written, so a failed read never leaves half a file.
type exportSet struct {
	tracts  []Tract
	commits []Commit // parents before children
	blobs   []Blob   // sorted by hash
	refs    []Ref
	anns    []Annotation // on exported commits only
}

// gatherExport reads what o exports: the tracts, their refs and the
// commits reachable from them (every commit with o.All), then their blobs
// and annotations.
func (r *Repo) gatherExport(ctx context.Context, o ExportOptions) (*exportSet, error) {
	set := &exportSet{}
	tracts, commits, refs, err := r.exportScope(ctx, o)
	if err != nil {
		return nil, err
	}
	set.tracts, set.commits, set.refs = tracts, topoOrder(commits), refs
	if set.blobs, err = r.exportBlobs(ctx, set.commits); err != nil {
		return nil, err
	}
	if set.anns, err = r.exportAnnotations(ctx, set.tracts, set.commits); err != nil {
		return nil, err
	}
	return set, nil
}

// exportScope lists the tracts, commits and refs an export covers.
func (r *Repo) exportScope(ctx context.Context, o ExportOptions) ([]Tract, []Commit, []Ref, error) {
	var tracts []Tract
	var commits []Commit
	if o.All {
		ts, err := r.store.Tracts(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		tracts = ts
		err = r.store.ScanCommits(ctx, func(c Commit) error { commits = append(commits, c); return nil })
		if err != nil {
			return nil, nil, nil, err
		}
	} else {
		t, err := r.Tract(ctx, o.Tract)
		if err != nil {
			return nil, nil, nil, err
		}
		tracts = []Tract{t}
	}
	var refs []Ref
	for _, t := range tracts {
		rs, err := r.store.Refs(ctx, t.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		refs = append(refs, rs...)
	}
	if !o.All {
		var heads []Hash
		for _, ref := range refs {
			if !strings.HasPrefix(ref.Value, branchPrefix) {
				heads = append(heads, Hash(ref.Value))
			}
		}
		if len(heads) > 0 {
			anc, err := r.store.Ancestry(ctx, heads)
			if err != nil {
				return nil, nil, nil, err
			}
			commits = anc
		}
	}
	return tracts, commits, refs, nil
}

// exportBlobs reads the content blobs of commits, sorted by hash.
func (r *Repo) exportBlobs(ctx context.Context, commits []Commit) ([]Blob, error) {
	var contents []Hash
	seen := map[Hash]bool{}
	for _, c := range commits {
		if c.Content != "" && !seen[c.Content] {
			seen[c.Content] = true
			contents = append(contents, c.Content)
		}
	}
	slices.Sort(contents)
	var blobs []Blob
	for chunk := range slices.Chunk(contents, 500) {
		bs, err := r.store.Blobs(ctx, chunk, "")
		if err != nil {
			return nil, err
		}
		blobs = append(blobs, bs...)
	}
	slices.SortFunc(blobs, func(a, b Blob) int { return strings.Compare(string(a.Hash), string(b.Hash)) })
	if len(blobs) != len(contents) {
		return nil, fmt.Errorf("export: %d of %d blobs are missing (run 'lineage tract verify')", len(contents)-len(blobs), len(contents))
	}
	return blobs, nil
}

// exportAnnotations are the tracts' annotations on exported commits.
func (r *Repo) exportAnnotations(ctx context.Context, tracts []Tract, commits []Commit) ([]Annotation, error) {
	var viewers []string
	for _, t := range tracts {
		viewers = append(viewers, t.ID)
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{Viewers: viewers})
	if err != nil {
		return nil, err
	}
	inExport := map[Hash]bool{}
	for _, c := range commits {
		inExport[c.Hash] = true
	}
	var out []Annotation
	for _, a := range anns {
		if inExport[a.Commit] {
			out = append(out, a)
		}
	}
	return out, nil
}

// write writes the set in the export format: header, tracts, blobs,
// commits, refs, annotations.
func (set *exportSet) write(w io.Writer) (ExportReport, error) {
	var rep ExportReport
	tracts, blobs, commits, refs, anns := set.tracts, set.blobs, set.commits, set.refs, set.anns
	bw := bufio.NewWriter(w)
	enc := jsontext.NewEncoder(bw)
	put := func(rec exportRecord) error {
		return json.MarshalEncode(enc, rec, json.Deterministic(true))
	}
	if err := put(exportRecord{Kind: exportHeader, Version: ExportVersion}); err != nil {
		return rep, err
	}
	slices.SortFunc(tracts, func(a, b Tract) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, t := range tracts {
		created := t.Created.UTC()
		sp := t.Spawn
		if sp != nil {
			cp := *sp
			cp.Time = cp.Time.UTC()
			sp = &cp
		}
		if err := put(exportRecord{Kind: "tract", ID: t.ID, Name: t.Name, Created: &created, Spawn: sp}); err != nil {
			return rep, err
		}
		rep.Tracts++
	}
	for _, b := range blobs {
		if err := put(exportRecord{Kind: "blob", Hash: b.Hash, Data: jsontext.Value(b.Data)}); err != nil {
			return rep, fmt.Errorf("blob %s: %w", b.Hash.Short(), err)
		}
		rep.Blobs++
	}
	for _, c := range commits {
		at := c.Time.UTC()
		parents := c.Parents
		if parents == nil {
			parents = []Hash{}
		}
		rec := exportRecord{Kind: "commit", Hash: c.Hash, Parents: parents, Content: c.Content, Operation: c.Operation,
			EditTarget: c.EditTarget, Tract: c.Tract, Time: &at, Message: c.Message, Meta: c.Meta}
		if err := put(rec); err != nil {
			return rep, err
		}
		rep.Commits++
	}
	slices.SortFunc(refs, func(a, b Ref) int {
		if c := strings.Compare(a.Tract, b.Tract); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, ref := range refs {
		if err := put(exportRecord{Kind: "ref", Tract: ref.Tract, Name: ref.Name, Value: ref.Value}); err != nil {
			return rep, err
		}
		rep.Refs++
	}
	for _, a := range anns {
		at := a.Time.UTC()
		if err := put(exportRecord{Kind: "annotation", Viewer: a.Viewer, Commit: a.Commit, Priority: a.Priority, Reason: a.Reason, Time: &at, Head: a.Head}); err != nil {
			return rep, err
		}
		rep.Annotations++
	}
	return rep, bw.Flush()
}

// topoOrder sorts commits parents first, ties by hash: the same set always
// comes out in the same order.
func topoOrder(commits []Commit) []Commit {
	byHash := make(map[Hash]*Commit, len(commits))
	for i := range commits {
		byHash[commits[i].Hash] = &commits[i]
	}
	gen := make(map[Hash]int, len(commits))
	var depth func(h Hash) int
	depth = func(h Hash) int {
		if g, ok := gen[h]; ok {
			return g
		}
		gen[h] = 0 // a cycle cannot occur in hashed data; guard anyway
		c, ok := byHash[h]
		if !ok {
			return -1
		}
		g := 0
		deps := c.Parents
		if c.EditTarget != "" {
			deps = append(slices.Clone(deps), c.EditTarget)
		}
		for _, p := range deps {
			g = max(g, depth(p)+1)
		}
		gen[h] = g
		return g
	}
	// Iterative order of evaluation does not matter: depth is memoized.
	for i := range commits {
		depth(commits[i].Hash)
	}
	out := slices.Clone(commits)
	slices.SortFunc(out, func(a, b Commit) int {
		if c := gen[a.Hash] - gen[b.Hash]; c != 0 {
			return c
		}
		return strings.Compare(string(a.Hash), string(b.Hash))
	})
	return out
}
