package tract

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Compression by reference. A compress commit holds a summary written by the
// caller (lineage never calls a model) and names a range FROM..TO of the
// first-parent history, both ends included: FROM in its content, TO as its
// edit target. Compile renders the summary at TO's place and leaves out the
// range's messages, except PINNED ones, which stay where they are. Nothing
// is deleted: the originals stay in the DAG (the summary's edit target keeps
// them reachable for GC), blame maps the summary to them, and annotating the
// summary skip brings them back.
//
// The range a summary covers, in any viewer's linearization, is TO and every
// ancestor of TO emitted after FROM's first parent: the commits TO has that
// FROM's parent has not. For the tract that compressed, that is the
// contiguous run of its linearization from FROM's first parent (excluded)
// to TO.

// CompressOptions describe one compression.
type CompressOptions struct {
	// Range is FROM..TO: two refs, oldest first, both included.
	Range string
	// Summary is the text that stands in for the range.
	Summary string
	// Role is the summary's role: user (default) or assistant.
	Role string
	// Message is the commit message (default "compress FROM..TO").
	Message string
	// DryRun computes the effect and stores nothing.
	DryRun bool
	// Encoding names the token encoding of the reported counts.
	Encoding string
	// Uncounted is for a caller that reads no token figure (an importer
	// replaying a harness's compaction): contents the store has no count
	// for are not counted, so the tokenizer is not loaded, and the
	// result's TokensBefore and TokensAfter are -1.
	Uncounted bool
}

// Validate checks the options before any store is opened.
func (o CompressOptions) Validate() error {
	if _, _, err := ParseRange(o.Range); err != nil {
		return err
	}
	if strings.TrimSpace(o.Summary) == "" {
		return &ValidationError{Field: "summary", Reason: "empty: give the text that stands in for the range"}
	}
	if o.Role != "" && !contains(mustRoles(TypeSummary), o.Role) {
		return &ValidationError{Field: "role", Value: o.Role, Reason: "want user or assistant"}
	}
	if len(o.Message) > MaxMessageBytes {
		return &ValidationError{Field: "commit message", Reason: fmt.Sprintf("%d bytes, the limit is %d", len(o.Message), MaxMessageBytes)}
	}
	return nil
}

// ParseRange splits FROM..TO into its two refs. Neither end may be empty
// (a range names both ends), hold white space or a control character, and
// there is exactly one "..": ref names never contain one (see checkName).
// Errors are *ValidationError naming what is wrong.
func ParseRange(s string) (from, to string, err error) {
	bad := func(reason string) error {
		return &ValidationError{Field: "range", Value: s, Reason: reason + ": want FROM..TO (two refs, oldest first, both included)"}
	}
	i := strings.Index(s, "..")
	switch {
	case strings.TrimSpace(s) == "":
		return "", "", bad("empty")
	case i < 0:
		return "", "", bad(`no ".."`)
	case strings.HasPrefix(s[i:], "..."):
		return "", "", bad("three dots (git's symmetric difference) is not a range here")
	}
	from, to = s[:i], s[i+2:]
	switch {
	case from == "":
		return "", "", bad("FROM is empty (name both ends)")
	case to == "":
		return "", "", bad("TO is empty (name both ends)")
	case strings.Contains(to, ".."):
		return "", "", bad(`more than one ".."`)
	}
	for _, end := range [...]struct{ name, ref string }{{"FROM", from}, {"TO", to}} {
		if j := strings.IndexFunc(end.ref, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); j >= 0 {
			return "", "", bad(fmt.Sprintf("%s %q holds white space or a control character", end.name, end.ref))
		}
	}
	return from, to, nil
}

// CompressResult says what a compression did (or, dry, would do).
type CompressResult struct {
	Tract string `json:"tract"`
	// Commit is the compress commit; "" on a dry run.
	Commit Hash `json:"commit,omitempty"`
	From   Hash `json:"from"`
	To     Hash `json:"to"`
	// Replaced are the commits whose messages the summary stands in for.
	Replaced []Hash `json:"replaced"`
	// Kept are the range's PINNED messages, which stay.
	Kept         []Hash `json:"kept"`
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	DryRun       bool   `json:"dryRun"`
}

// Compress records a summary standing in for a range of the current
// branch's first-parent history.
func (r *Repo) Compress(ctx context.Context, tractName string, o CompressOptions) (CompressResult, error) {
	if err := o.Validate(); err != nil {
		return CompressResult{}, err
	}
	counter, err := r.counter(o.Encoding)
	if err != nil {
		return CompressResult{}, &ValidationError{Field: "encoding", Value: o.Encoding, Reason: err.Error()}
	}
	t, head, err := r.tractRef(ctx, tractName, HeadRef)
	if err != nil {
		return CompressResult{}, err
	}
	fromRef, toRef, _ := ParseRange(o.Range)
	from, err := r.Resolve(ctx, t, fromRef)
	if err != nil {
		return CompressResult{}, err
	}
	to, err := r.Resolve(ctx, t, toRef)
	if err != nil {
		return CompressResult{}, err
	}
	if err := checkRange(ctx, r.store, o.Range, from, to, head); err != nil {
		return CompressResult{}, err
	}
	get := r.cache.get
	if o.Uncounted {
		get = r.cache.getUncounted
	}
	v, err := get(ctx, r, t, counter, head)
	if err != nil {
		return CompressResult{}, err
	}
	res := CompressResult{Tract: t.Name, From: from, To: to, DryRun: o.DryRun, Replaced: []Hash{}, Kept: []Hash{}}
	removed, err := v.compressPlan(o.Range, from, to, &res)
	if err != nil {
		return CompressResult{}, err
	}
	content, err := Content{Type: TypeSummary, Role: o.Role, Text: o.Summary, From: from}.Normalize()
	if err != nil {
		return CompressResult{}, err
	}
	b, err := NewBlob(content)
	if err != nil {
		return CompressResult{}, err
	}
	if o.Uncounted {
		res.TokensBefore, res.TokensAfter = -1, -1
	} else {
		b.Tokens, b.Encoding = counter.Count(content.RenderedText()), counter.Encoding()
		res.TokensBefore = v.tokens + tokensPrimer
		res.TokensAfter = res.TokensBefore - removed + tokensPerMessage + b.Tokens
	}
	if o.DryRun {
		return res, nil
	}
	message := o.Message
	if message == "" {
		message = "compress " + from.Short() + ".." + to.Short()
	}
	res.Commit, err = r.writeCompress(ctx, t, head, o.Range, from, to, b, message)
	return res, err
}

// compressPlan fills res's Replaced and Kept with the messages of v that
// the summary of FROM..TO (rng) replaces and the pinned ones it keeps,
// and returns the tokens the replaced ones compile to. A range that cuts
// through an applied summary's, or replaces nothing, is refused.
func (v *view) compressPlan(rng string, from, to Hash, res *CompressResult) (int, error) {
	if ti, ok := v.lin.index(to); ok {
		if s, inside := v.overlap(v.covered(from, ti)); s != "" {
			reason := fmt.Sprintf("partly overlaps the range of summary %s: compress a range that holds it whole, or none of it", s.Short())
			if inside {
				reason = fmt.Sprintf("lies inside the range of summary %s: compress a range that holds it whole (or skip it first)", s.Short())
			}
			return 0, &ValidationError{Field: "range", Value: rng, Reason: reason}
		}
	}
	removed := 0
	covered := v.coveredSet(from, to)
	for _, m := range v.rendered {
		if !covered[m.Slot] {
			continue
		}
		if m.Priority == Pinned {
			res.Kept = append(res.Kept, m.Commit)
			continue
		}
		res.Replaced = append(res.Replaced, m.Commit)
		removed += m.Tokens
	}
	if len(res.Replaced) == 0 {
		return 0, &ValidationError{Field: "range", Value: rng, Reason: "compiles to no message a summary could replace (all pinned or skipped)"}
	}
	return removed, nil
}

// writeCompress commits the summary blob b over FROM..TO (rng) on top of
// the tract's HEAD, planned at head: another writer's append is fine while
// the range still lies behind the new head, another compress is not.
func (r *Repo) writeCompress(ctx context.Context, t Tract, head Hash, rng string, from, to Hash, b Blob, message string) (Hash, error) {
	var commit Hash
	err := r.retry(ctx, func() error {
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			h, err := readHead(ctx, tx, t.ID)
			if err != nil {
				return err
			}
			if h.Commit != head {
				// Another writer appended: the range must still lie behind the new head.
				if err := checkRange(ctx, tx, rng, from, to, h.Commit); err != nil {
					return err
				}
				// A summary applied meanwhile may overlap this one's range,
				// which was checked against the old head's summaries only:
				// refused, never written and silently left unapplied.
				if s, err := compressSince(ctx, tx, h.Commit, head); err != nil || s != "" {
					if err != nil {
						return err
					}
					return &ValidationError{Field: "range", Value: rng, Reason: fmt.Sprintf("another compress (%s) was applied while this one was prepared: run it again", s.Short())}
				}
			}
			if err := tx.PutBlobs(ctx, b); err != nil {
				return err
			}
			c := Commit{Parents: []Hash{h.Commit}, Content: b.Hash, Operation: OpCompress, EditTarget: to, Tract: t.ID, Time: now, Message: message}
			c.Hash = c.ComputeHash()
			if err := putCommits(ctx, tx, c); err != nil {
				return err
			}
			commit = c.Hash
			return moveHead(ctx, tx, t.ID, h, c.Hash, "compress", now)
		})
	})
	return commit, err
}

// checkRange makes sure FROM..TO lies on head's first-parent history, FROM
// at or behind TO.
func checkRange(ctx context.Context, rd Reader, rng string, from, to, head Hash) error {
	if head == "" {
		return &ValidationError{Field: "range", Value: rng, Reason: "the current branch has no commits"}
	}
	ok, err := onFirstParentHistory(ctx, rd, to, head)
	if err != nil {
		return err
	}
	if !ok {
		return &ValidationError{Field: "range", Value: rng, Reason: fmt.Sprintf("%s is not on the current branch's first-parent history", to.Short())}
	}
	if ok, err = onFirstParentHistory(ctx, rd, from, to); err != nil {
		return err
	}
	if !ok {
		return &ValidationError{Field: "range", Value: rng, Reason: fmt.Sprintf("%s is not %s or one of its first parents (oldest first)", from.Short(), to.Short())}
	}
	return nil
}

// onFirstParentHistory reports whether a is b or one of b's first parents,
// in O(log depth) rows when the commits' positions are known.
func onFirstParentHistory(ctx context.Context, rd Reader, a, b Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	ac, err := rd.Commit(ctx, a)
	if err != nil {
		return false, err
	}
	bc, err := rd.Commit(ctx, b)
	if err != nil {
		return false, err
	}
	if ac.Pos.Known() && bc.Pos.Known() {
		if ac.Pos.Depth >= bc.Pos.Depth {
			return false, nil
		}
		anc, _, ok, err := firstParentAncestor(ctx, rd, b, int(bc.Pos.Depth-ac.Pos.Depth))
		return ok && anc == a, err
	}
	for len(bc.Parents) > 0 {
		if bc.Parents[0] == a {
			return true, nil
		}
		if bc, err = rd.Commit(ctx, bc.Parents[0]); err != nil {
			return false, err
		}
	}
	return false, nil
}

// placedSummary is a summary that renders at some place of a view.
type placedSummary struct {
	index    int
	priority Priority
	replaced []Hash
}

// summaries applies the view's compress commits in linearization order: each
// one not skipped hides the non-PINNED messages of its range (a summary
// rendered inside the range included) and is placed at the range's newest
// commit. It clears ok for hidden places and returns the summaries by place.
//
// Every message stays represented: a summary applies only when its range
// holds every applied summary's range it meets whole (it then replaces
// them). One whose range partly overlaps, or lies inside, an applied
// summary's range (compress refuses both; a skip taken back can bring them
// about) is left out, and the messages stay under the earlier summary.
func (v *view) summaries(prio []Priority, ok, deselected []bool) map[int][]placedSummary {
	var at map[int][]placedSummary
	// owner[i] is the applied summary whose range holds place i, by its
	// index in ranges; -1 for none.
	var owner []int
	var ranges [][]int
	for s, c := range v.lin.order {
		if c.Operation != OpCompress || deselected != nil && deselected[s] {
			continue
		}
		content := &v.entries[s].content
		to, found := v.lin.index(c.EditTarget)
		if !found || content.Type != TypeSummary {
			continue
		}
		p := v.priority(s, content)
		if p == Skip {
			continue
		}
		covered := v.covered(content.From, to)
		if covered == nil {
			continue
		}
		if owner == nil {
			owner = make([]int, len(v.lin.order))
			for i := range owner {
				owner[i] = -1
			}
		}
		if !holdsWhole(covered, owner, ranges) {
			continue
		}
		for _, i := range covered {
			owner[i] = len(ranges)
		}
		ranges = append(ranges, covered)
		ps := placedSummary{index: s, priority: p}
		for _, i := range covered {
			if ok[i] && prio[i] != Pinned {
				ok[i] = false
				ps.replaced = append(ps.replaced, v.lin.order[i].Hash)
			}
			if list, had := at[i]; had {
				kept := list[:0]
				for _, x := range list {
					if x.priority == Pinned {
						kept = append(kept, x)
					} else {
						ps.replaced = append(ps.replaced, v.lin.order[x.index].Hash)
					}
				}
				at[i] = kept
			}
		}
		if at == nil {
			at = map[int][]placedSummary{}
		}
		at[to] = append(at[to], ps)
	}
	return at
}

// holdsWhole reports whether the places covered (ascending) hold, whole,
// the range of every applied summary they meet.
func holdsWhole(covered, owner []int, ranges [][]int) bool {
	met := map[int]bool{}
	for _, i := range covered {
		if o := owner[i]; o >= 0 && !met[o] {
			met[o] = true
			for _, j := range ranges[o] {
				if _, found := slices.BinarySearch(covered, j); !found {
					return false
				}
			}
		}
	}
	return true
}

// overlap names an applied summary of the view whose range the places
// covered (ascending) meet but do not hold whole; "" when there is none.
// inside reports that the summary's range holds covered whole.
func (v *view) overlap(covered []int) (summary Hash, inside bool) {
	for _, m := range v.rendered {
		if m.Type != TypeSummary {
			continue
		}
		i, ok := v.lin.index(m.Commit)
		if !ok {
			continue
		}
		to, ok := v.lin.index(v.lin.order[i].EditTarget)
		if !ok {
			continue
		}
		theirs := v.covered(v.entries[i].content.From, to)
		met, whole := false, true
		for _, j := range theirs {
			if _, found := slices.BinarySearch(covered, j); found {
				met = true
			} else {
				whole = false
			}
		}
		if met && !whole {
			in := true
			for _, j := range covered {
				if _, found := slices.BinarySearch(theirs, j); !found {
					in = false
					break
				}
			}
			return m.Commit, in
		}
	}
	return "", false
}

// covered lists, ascending, the places of the view a range from..the commit
// at place to covers: to and its ancestors emitted after from's first
// parent. It is nil when from is not in the view or after to.
func (v *view) covered(from Hash, to int) []int {
	fi, ok := v.lin.index(from)
	if !ok || fi > to {
		return nil
	}
	floor := -1
	if fc := v.lin.order[fi]; len(fc.Parents) > 0 {
		if pi, ok := v.lin.index(fc.Parents[0]); ok {
			floor = pi
		}
	}
	out := []int{to}
	if to > floor {
		out = v.reachable(to, floor) // TO and its ancestors emitted after the floor
	}
	sort.Ints(out)
	return out
}

// coveredSet is covered as a set, by hashes.
func (v *view) coveredSet(from, to Hash) map[int]bool {
	out := map[int]bool{}
	if ti, ok := v.lin.index(to); ok {
		for _, i := range v.covered(from, ti) {
			out[i] = true
		}
	}
	return out
}

// mustRoles is the roles of a known content type.
func mustRoles(t Type) []string {
	roles, _ := allowedRoles(t)
	return roles
}
