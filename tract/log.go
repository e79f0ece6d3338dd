package tract

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// LogOptions select the history to list.
type LogOptions struct {
	// N limits the entries (0: all).
	N int
	// All lists the history of every branch, not just HEAD's.
	All bool
	// Skip leaves out the first Skip entries (a page further down the
	// log); with N and not All the log reads Skip+N commits, not the
	// history.
	Skip int
	// From, when set, is the ref the log starts at instead of HEAD (as
	// `git log REF`); refs still label the commits they name. A page that
	// ends on HEAD's first-parent chain continues, from its last such
	// commit, as the log of that commit.
	From string
	// Type, Role and Tag, when set, keep only commits of that content type,
	// of that role, or the commit that tag names (N and Skip count the
	// entries kept). A filtered log reads the whole history.
	Type Type
	Role string
	Tag  string
	// Operation, when set, keeps only commits of that operation (append,
	// edit, merge, compress).
	Operation Operation
}

// filtered reports whether o keeps only some commits.
func (o LogOptions) filtered() bool {
	return o.Type != "" || o.Role != "" || o.Tag != "" || o.Operation != ""
}

// LogEntry is one commit in a log.
type LogEntry struct {
	Hash       Hash      `json:"hash"`
	Parents    []Hash    `json:"parents"`
	Operation  Operation `json:"operation"`
	EditTarget Hash      `json:"editTarget,omitempty"`
	Tract      string    `json:"tract"`
	Time       time.Time `json:"time"`
	Message    string    `json:"message,omitempty"`
	// Meta is the commit's metadata object, if any.
	Meta    jsontext.Value `json:"meta,omitzero"`
	Type    Type           `json:"type,omitempty"`
	Role    string         `json:"role,omitempty"`
	Summary string         `json:"summary"`
	Refs    []string       `json:"refs"`
	// GraphParents, in a filtered log, are the nearest kept commits below
	// each parent (the history simplified to what the log lists): what
	// a drawn graph joins each entry to.
	GraphParents []Hash `json:"-"`
	// Content is the commit's content blob ("" for a merge); not printed.
	Content Hash `json:"-"`
}

// Log lists a tract's history newest first, in linearization order reversed
// (so a merged block sits just below its merge commit).
func (r *Repo) Log(ctx context.Context, tractName string, o LogOptions) ([]LogEntry, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	t, head, err := r.Head(ctx, tractName)
	if err != nil {
		return nil, err
	}
	refs, err := r.store.Refs(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	labels := map[Hash][]string{}
	tips := []Hash{}
	if head.Commit != "" {
		labels[head.Commit] = append(labels[head.Commit], HeadRef)
	}
	start := head.Commit
	if o.From != "" {
		if start, err = r.Resolve(ctx, t, o.From); err != nil {
			return nil, err
		}
	}
	if start != "" {
		tips = append(tips, start)
	}
	for _, ref := range refs {
		if ref.Name == HeadRef {
			continue
		}
		labels[Hash(ref.Value)] = append(labels[Hash(ref.Value)], ref.Name)
		if o.All {
			tips = append(tips, Hash(ref.Value))
		}
	}
	if len(tips) == 0 {
		return []LogEntry{}, nil
	}
	order, all, err := r.logOrder(ctx, t, start, tips, o)
	if err != nil {
		return nil, err
	}
	var simplified map[Hash][]Hash
	if o.filtered() {
		simplified = simplify(all, order)
	}
	return r.logEntries(ctx, order, labels, simplified)
}

// logOrder is the commits a log of t from start (tips: every tip it
// walks) lists under o, newest first, filtered and windowed, and, when o
// filters, the whole history they were kept from.
func (r *Repo) logOrder(ctx context.Context, t Tract, start Hash, tips []Hash, o LogOptions) (order, all []*Commit, err error) {
	var tagged []Hash
	if o.Tag != "" {
		if tagged, err = tagCommits(ctx, r.store, t, o.Tag); err != nil {
			return nil, nil, err
		}
	}
	if o.filtered() {
		if all, err = r.linearizeAll(ctx, tips); err != nil {
			return nil, nil, err
		}
		if order, err = r.filterLog(ctx, all, o, tagged); err != nil {
			return nil, nil, err
		}
		if o.N > 0 && len(order) > o.Skip+o.N {
			order = order[:o.Skip+o.N]
		}
	} else if o.N > 0 && !o.All {
		w := newestFirst{rd: newMemoReader(r.store), limit: o.Skip + o.N}
		if err := w.walk(ctx, start, nil); err != nil {
			return nil, nil, err
		}
		order = w.out
	} else if order, err = r.linearizeAll(ctx, tips); err != nil {
		return nil, nil, err
	}
	if o.Skip > 0 {
		order = order[min(o.Skip, len(order)):]
		if o.N > 0 && len(order) > o.N {
			order = order[:o.N]
		}
	}
	return order, all, nil
}

// logEntries makes the entries of order: their contents read in one
// query, their tracts' names, the refs (labels) pointing at them and, in
// a filtered log, the parents a graph draws (simplified).
func (r *Repo) logEntries(ctx context.Context, order []*Commit, labels map[Hash][]string, simplified map[Hash][]Hash) ([]LogEntry, error) {
	var contents []Hash
	for _, c := range order {
		if c.Content != "" {
			contents = append(contents, c.Content)
		}
	}
	byHash, err := r.contents(ctx, contents)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	out := make([]LogEntry, 0, len(order))
	for _, c := range order {
		name, ok := names[c.Tract]
		if !ok {
			name = c.Tract
			if tt, err := r.store.TractByID(ctx, c.Tract); err == nil {
				name = tt.Name
			}
			names[c.Tract] = name
		}
		e := newLogEntry(c, name, labels[c.Hash], byHash)
		if simplified != nil {
			e.GraphParents = simplified[c.Hash]
			if e.GraphParents == nil {
				e.GraphParents = []Hash{}
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// simplify maps each kept commit to the nearest kept commits below each
// of its parents, first parent first, in the history all (newest first).
func simplify(all, kept []*Commit) map[Hash][]Hash {
	keep := make(map[Hash]bool, len(kept))
	for _, c := range kept {
		keep[c.Hash] = true
	}
	below := make(map[Hash][]Hash, len(all)) // nearest kept at or below
	out := make(map[Hash][]Hash, len(kept))
	for i := len(all) - 1; i >= 0; i-- {
		c := all[i]
		var ps []Hash
		for _, p := range c.Parents {
			for _, h := range below[p] {
				if !slices.Contains(ps, h) {
					ps = append(ps, h)
				}
			}
		}
		if keep[c.Hash] {
			out[c.Hash] = ps
			below[c.Hash] = []Hash{c.Hash}
		} else {
			below[c.Hash] = ps
		}
	}
	return out
}

// filterLog keeps the commits of order that o's type, role and tag filters
// select.
func (r *Repo) filterLog(ctx context.Context, order []*Commit, o LogOptions, tagged []Hash) ([]*Commit, error) {
	var contents []Hash
	for _, c := range order {
		if c.Content != "" && (o.Type != "" || o.Role != "") {
			contents = append(contents, c.Content)
		}
	}
	byHash, err := r.contents(ctx, contents)
	if err != nil {
		return nil, err
	}
	var out []*Commit
	for _, c := range order {
		if o.Tag != "" && !slices.Contains(tagged, c.Hash) {
			continue
		}
		if o.Operation != "" && c.Operation != o.Operation {
			continue
		}
		if o.Type != "" || o.Role != "" {
			content, ok := byHash[c.Content]
			if !ok || o.Type != "" && content.Type != o.Type || o.Role != "" && content.Role != o.Role {
				continue
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// linearizeAll reads the whole history behind tips and returns it newest
// first (the linearization reversed).
func (r *Repo) linearizeAll(ctx context.Context, tips []Hash) ([]*Commit, error) {
	anc, err := r.store.Ancestry(ctx, tips)
	if err != nil {
		return nil, err
	}
	m := make(map[Hash]*Commit, len(anc))
	for i := range anc {
		m[anc[i].Hash] = &anc[i]
	}
	l := linearizer{get: mapSource(m)}
	for _, tip := range tips {
		if err := l.add(tip); err != nil {
			return nil, err
		}
	}
	slices.Reverse(l.order)
	return l.order, nil
}

func newLogEntry(c *Commit, tractName string, refs []string, byHash map[Hash]Content) LogEntry {
	e := LogEntry{Hash: c.Hash, Parents: c.Parents, Operation: c.Operation, EditTarget: c.EditTarget, Tract: tractName, Meta: c.Meta,
		Time: c.Time, Message: c.Message, Refs: append([]string{}, refs...), Content: c.Content}
	sort.Strings(e.Refs)
	if content, ok := byHash[c.Content]; ok {
		e.Type, e.Role, e.Summary = content.Type, content.Role, summary(content)
	} else if c.Operation == OpMerge {
		e.Summary = c.Message
	}
	return e
}

// contents decodes the blobs of hashes.
func (r *Repo) contents(ctx context.Context, hashes []Hash) (map[Hash]Content, error) {
	blobs, err := r.store.Blobs(ctx, hashes, "")
	if err != nil {
		return nil, err
	}
	out := make(map[Hash]Content, len(blobs))
	for _, b := range blobs {
		c, err := DecodeContent(b.Data)
		if err != nil {
			return nil, err
		}
		out[b.Hash] = c
	}
	return out, nil
}

// Headline is the one line listings show for content (log, find): its
// text up to the first line break (more reports that one followed), else
// its first tool call as name(arguments), else a tools commit's tool names.
func (c Content) Headline() (line string, more bool) {
	s := strings.TrimSpace(c.Text)
	switch {
	case s == "" && len(c.ToolCalls) > 0:
		s = c.ToolCalls[0].Name + "(" + c.ToolCalls[0].Arguments + ")"
	case s == "" && c.Type == TypeTools:
		names := make([]string, len(c.Tools))
		for i, t := range c.Tools {
			names[i] = t.Name
		}
		s = strings.Join(names, ", ")
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], true
	}
	return s, false
}

func summary(c Content) string {
	s, more := c.Headline()
	if more {
		s += " …"
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// Shown is one commit with its content and annotations.
type Shown struct {
	Commit      Commit       `json:"commit"`
	Tract       string       `json:"tract"`
	Content     *Content     `json:"content"`
	Blob        *BlobInfo    `json:"blob"`
	Annotations []Annotation `json:"annotations"`
}

// BlobInfo describes a commit's blob.
type BlobInfo struct {
	Hash Hash `json:"hash"`
	Size int  `json:"size"`
}

// Show returns the commit ref names with its content and the annotations on it.
func (r *Repo) Show(ctx context.Context, tractName, ref string) (Shown, error) {
	t, h, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return Shown{}, err
	}
	c, err := r.store.Commit(ctx, h)
	if err != nil {
		return Shown{}, err
	}
	s := Shown{Commit: c, Tract: c.Tract, Annotations: []Annotation{}}
	if c.Tract == t.ID {
		s.Tract = t.Name // the common case: no read
	} else if at, err := r.store.TractByID(ctx, c.Tract); err == nil {
		s.Tract = at.Name
	}
	if c.Content != "" {
		blobs, err := r.store.Blobs(ctx, []Hash{c.Content}, "")
		if err != nil {
			return s, err
		}
		if len(blobs) == 1 {
			content, err := DecodeContent(blobs[0].Data)
			if err != nil {
				return s, err
			}
			s.Content = &content
			s.Blob = &BlobInfo{Hash: blobs[0].Hash, Size: blobs[0].Size()}
		}
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{Commit: h})
	if err != nil {
		return s, err
	}
	s.Annotations = append(s.Annotations, anns...)
	return s, nil
}
