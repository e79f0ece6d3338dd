package tract

import (
	"context"
	"errors"
	"slices"

	"github.com/agentlineage/lineage/internal/tokens"
)

// A compile window of a tract without a stored checkpoint (never
// compiled) whose history is a chain of its own appends (what an import
// or an agent loop writes: no merge, edit, compression or spawn) is read
// from the history in pieces of chainPiece commits, never held whole: a
// first pass walks the chain from the head down, renders each piece as a
// compile renders it and keeps only its top commit, how many commits and
// messages it holds, the compile's tokens, the tools in force and which
// named instruction of each name stays; the window's pass reads again
// only the pieces holding a message it keeps, lists or hands to
// WindowOptions.Head (a budget's or prune's choice reads every piece once
// more, keeping a few bytes a message). Memory is a piece's commits and
// contents and a few words a piece (a budget: a few bytes a message),
// where building the compile whole holds every commit and content at once
// (about 250 MB at 100k messages). The tract's own annotations apply as a
// compile applies them (they are the only ones that can decide a priority
// there); more than maxChainAnnotations of them (or instruction names),
// and any other history, leave the window to the whole compile.

// chainPiece is how many commits a piece of a chain window reads at once
// (Options.WindowPiece).
const chainPiece = 512

// maxChainAnnotations bounds the annotations a chain window holds.
const maxChainAnnotations = 4096

// chainSource is a chain window's plan: its pieces, oldest first.
type chainSource struct {
	r       *Repo
	ctx     context.Context
	t       Tract
	counter tokens.Counter
	ann     map[annKey]Priority
	// named is the commit of the named instruction that stays, by name;
	// tools the tools in force (toolsSeen: found).
	named     map[string]Hash
	tools     []ToolDef
	toolsSeen bool
	pieces    []chainPart
	// err is a store error met while reading a piece.
	err error
	// reads counts the pieces rendered (tests).
	reads int
}

// chainPart is one piece of a chain: its newest commit, how many commits
// it holds and how many messages they render.
type chainPart struct {
	top           Hash
	commits, msgs int
}

// planChain plans the chain window of t at head (see above); ok is false
// when t's history is not such a chain.
func (r *Repo) planChain(ctx context.Context, t Tract, counter tokens.Counter, head Hash) (*chainSource, windowSource, bool, error) {
	if t.Spawn != nil || head == "" {
		return nil, windowSource{}, false, nil
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{Viewers: []string{t.ID}})
	if err != nil || len(anns) > maxChainAnnotations {
		return nil, windowSource{}, false, err
	}
	cs := &chainSource{r: r, ctx: ctx, t: t, counter: counter, ann: map[annKey]Priority{}, named: map[string]Hash{}}
	for _, a := range anns { // ordered by Seq: the newest counts
		cs.ann[annKey{a.Viewer, a.Commit}] = a.Priority
	}
	if hc, err := r.store.Commit(ctx, head); err != nil || hc.Pos.Known() && hc.Pos.Gen != hc.Pos.Depth+1 {
		return nil, windowSource{}, false, err // a merge below the head
	}
	src := windowSource{tokens: tokensPrimer}
	for h := head; h != ""; {
		commits, next, withBlobs, ok, err := cs.walk(h, r.windowPiece)
		if err != nil || !ok {
			return nil, windowSource{}, false, err
		}
		msgs, ok, err := cs.render(commits, withBlobs, 0, true)
		if err != nil || !ok {
			return nil, windowSource{}, false, err
		}
		for _, m := range msgs {
			src.tokens += m.Tokens
		}
		src.n += len(msgs)
		cs.pieces = append(cs.pieces, chainPart{top: h, commits: len(commits), msgs: len(msgs)})
		h = next
	}
	slices.Reverse(cs.pieces)
	src.tools, src.each = cs.tools, cs.each
	return cs, src, true, nil
}

// walk reads up to n commits of the chain down from top, oldest first,
// and the parent of the oldest ("" at the root); ok is false at a commit
// the chain window does not render as it is. A store that reads a
// stretch of a chain at once (ChainReader) is asked for them with their
// blobs (withBlobs), else they are read a commit at a time.
func (cs *chainSource) walk(top Hash, n int) (commits []HistoryCommit, next Hash, withBlobs, ok bool, err error) {
	commits = make([]HistoryCommit, 0, n)
	cr, stretches := cs.r.store.(ChainReader)
	h := top
	for h != "" && len(commits) < n {
		var batch []HistoryCommit
		if stretches {
			batch, err = cr.FirstParents(cs.ctx, h, n-len(commits), cs.counter.Encoding())
		}
		if err == nil && len(batch) == 0 {
			stretches = false
			var c Commit
			if c, err = cs.r.store.Commit(cs.ctx, h); err == nil {
				batch = []HistoryCommit{{Commit: c}}
			}
		}
		if errors.Is(err, ErrNotFound) {
			return nil, "", false, false, nil
		}
		if err != nil {
			return nil, "", false, false, err
		}
		for i := range batch {
			c := &batch[i].Commit
			if c.Hash != h || len(c.Parents) > 1 || c.Operation != OpAppend || c.Tract != cs.t.ID || c.EditTarget != "" {
				return nil, "", false, false, nil
			}
			commits = append(commits, batch[i])
			h = ""
			if len(c.Parents) == 1 {
				h = c.Parents[0]
			}
		}
	}
	slices.Reverse(commits)
	return commits, h, stretches, true, nil
}

// render renders commits, the chain's from slot on, as a compile renders
// them. Of the named instructions of one name only the newest that renders
// stays, and the newest tools are those in force (render's rule): the
// plan, reading the pieces newest first, reads each piece backwards to
// note them (plan), and the window's pass keeps only those noted.
func (cs *chainSource) render(hcs []HistoryCommit, withBlobs bool, slot int, plan bool) ([]Message, bool, error) {
	v := newView(cs.t, cs.counter)
	v.ann = cs.ann
	commits := make([]*Commit, len(hcs))
	blobs := make([]*Blob, len(hcs))
	for i := range hcs {
		commits[i] = &hcs[i].Commit
		if hcs[i].Blob.Hash != "" {
			blobs[i] = &hcs[i].Blob
		}
	}
	v.lin.order = commits
	var err error
	if withBlobs {
		err = cs.r.decodeEntries(cs.ctx, v, 0, blobs, true)
	} else {
		err = cs.r.loadEntries(cs.ctx, v, 0)
	}
	if err != nil {
		return nil, false, err
	}
	if err := cs.r.loadTracts(cs.ctx, v, 0); err != nil {
		return nil, false, err
	}
	cs.r.keep(cs.ctx, v, false) // token counts made on the way
	prio := make([]Priority, len(commits))
	ok := make([]bool, len(commits))
	for i := range commits {
		prio[i], ok[i] = v.candidate(i, &v.entries[i].content)
	}
	for i := len(commits) - 1; plan && i >= 0; i-- {
		content := &v.entries[i].content
		switch {
		case !ok[i]:
		case content.Type == TypeInstruction && content.Name != "":
			if _, seen := cs.named[content.Name]; !seen {
				if len(cs.named) == maxChainAnnotations {
					return nil, false, nil
				}
				cs.named[content.Name] = commits[i].Hash
			}
		case content.Type == TypeTools && !cs.toolsSeen:
			cs.tools, cs.toolsSeen = cloneTools(content.Tools), true
		}
	}
	msgs := make([]Message, 0, len(commits))
	for i, c := range commits {
		content := &v.entries[i].content
		if !ok[i] || content.Type == TypeTools || content.Type == TypeInstruction && content.Name != "" && cs.named[content.Name] != c.Hash {
			continue
		}
		m := v.message(i, content, v.entries[i].tokens, prio[i])
		m.Slot += slot
		msgs = append(msgs, m)
	}
	return msgs, true, nil
}

// each is windowSource.each over the chain's pieces: a piece none of
// whose messages is wanted is not read.
func (cs *chainSource) each(want func(i int) bool, _ func(i int) *hexArena, visit func(i int, m *Message) bool) bool {
	i, slot := 0, 0
	for _, p := range cs.pieces {
		var msgs []Message
		for j := range p.msgs {
			if msgs == nil && (want == nil || want(i)) {
				commits, _, withBlobs, ok, err := cs.walk(p.top, p.commits)
				if err == nil && ok && len(commits) == p.commits {
					msgs, ok, err = cs.render(commits, withBlobs, slot, false)
				}
				cs.reads++
				if err != nil || !ok || len(msgs) != p.msgs {
					cs.err = err
					return false
				}
			}
			var m *Message
			if msgs != nil {
				m = &msgs[j]
			}
			if !visit(i, m) {
				return true
			}
			i++
		}
		slot += p.commits
	}
	return true
}

// windowChain is the window of t's compile at head under o read from its
// history in pieces (see above); ok is false when t's history is not a
// chain the pieces serve, or the budget cannot be met (the full compile
// says why).
func (r *Repo) windowChain(ctx context.Context, t Tract, counter tokens.Counter, head Hash, o CompileOptions, w WindowOptions) (WindowResult, bool, error) {
	cs, src, ok, err := r.planChain(ctx, t, counter, head)
	if err != nil || !ok {
		return WindowResult{}, false, err
	}
	var prune PrunePolicy
	if o.Prune != nil {
		prune = *o.Prune
	}
	res, ok, err := r.windowOver(ctx, src, o.Budget, prune, w, func() error { return cs.err })
	if err != nil || !ok {
		return WindowResult{}, false, err
	}
	res.Tract, res.Head, res.Encoding, res.TractID = t.Name, head, counter.Encoding(), t.ID
	return res, true, nil
}
