package tract

import (
	"context"
	"errors"
	"strings"

	"github.com/agentlineage/lineage/internal/tokens"
)

// A compile window is what a page of a long compile shows: a few hundred
// of its messages, the first of its dropped ones and the figures of the
// whole. When the stored checkpoint serves the compile (planStored), the
// window is read from the checkpoint's messages part one message at a time
// (twice with a budget: once for the budget's choice, which keeps a few
// bytes per message, once for the window), and only the messages the
// window shows are kept: memory in proportion to the window, not to the
// history, and no view is built or cached. Without a stored checkpoint,
// a history that is a chain of the tract's own appends is read in pieces
// (window_chain.go), again keeping only what the window shows. Else the
// window is cut from a cold compile (CompileCold).

// WindowOptions select the part of a compile [Repo.CompileWindow] keeps.
type WindowOptions struct {
	// From is the index in the compile of the window's first message;
	// negative or past the end: the newest window.
	From int
	// N is the most messages the window holds.
	N int
	// Dropped is the most dropped messages listed.
	Dropped int
	// Head, when set, is handed the compile's messages from the first, in
	// order, until it returns false. A message's strings are valid only
	// during the call (clone what is kept); its Commit and Summarizes may
	// be empty.
	Head func(m *Message) bool
	// HeadReadsAll says Head takes messages to the end (it rarely
	// returns false): the stored messages are then read whole, one read,
	// rather than piece by piece.
	HeadReadsAll bool
	// Hashes gives the messages handed to Head their Commit and
	// Summarizes (valid, like their strings, only during the call).
	Hashes bool
	// Whole, when set, is called before the compile is built whole (no
	// stored checkpoint serves it): the costly case, a whole history in
	// memory. It may wait for a turn (an error it returns is the
	// window's); done is called when the compile is built. The stored
	// checkpoint is tried again once it returns, since a whole compile
	// that held the turn before may have stored it.
	Whole func(ctx context.Context) (done func(), err error)
}

// WindowResult is a compile window.
type WindowResult struct {
	// Result is the compile's, but its Messages are the window's, its
	// Dropped the first WindowOptions.Dropped dropped messages and its
	// Pruned the first WindowOptions.Dropped pruned ones.
	Result
	// Count is how many messages the compile has, From the index of the
	// window's first one and DroppedCount how many the budget dropped.
	Count, From, DroppedCount int
	// PrunedCount is how many messages CompileOptions.Prune left out,
	// PrunedTokens their tokens.
	PrunedCount, PrunedTokens int
}

// CompileWindow is CompileCold's result of tractName under o cut to the
// window w asks for; see the comment above for what it costs.
func (r *Repo) CompileWindow(ctx context.Context, tractName string, o CompileOptions, w WindowOptions) (WindowResult, error) {
	t, counter, head, err := r.compileTarget(ctx, tractName, o)
	if err != nil {
		return WindowResult{}, err
	}
	lk := &lookup{}
	res, ok, err := r.windowStoredOf(ctx, lk, t, counter, head, o, w)
	if err != nil || ok {
		return res, err
	}
	if lk.absent || r.noCheckpoints {
		// Never compiled (no checkpoint in this encoding, or none kept):
		// a chain of plain appends is read in pieces (window_chain.go).
		if res, ok, err := r.windowChain(ctx, t, counter, head, o, w); err != nil || ok {
			return res, err
		}
	}
	if w.Whole != nil {
		done, err := w.Whole(ctx)
		if err != nil {
			return WindowResult{}, err
		}
		defer done()
		lk = &lookup{}
		if res, ok, err := r.windowStoredOf(ctx, lk, t, counter, head, o, w); err != nil || ok {
			return res, err
		}
	}
	var whole Result
	if o.Prune != nil && o.Prune.Active() {
		whole, err = r.compilePruned(ctx, t, counter, head, o, false)
	} else {
		whole, err = r.compileAt(ctx, lk, t, counter, head, o, false)
	}
	if err != nil {
		return WindowResult{}, err
	}
	return windowOf(whole, w), nil
}

// windowStoredOf is the window of t's compile at head under o read from
// the stored checkpoint (windowStored); ok is false when the checkpoint
// does not serve it. lk learns what the look-up found.
func (r *Repo) windowStoredOf(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash, o CompileOptions, w WindowOptions) (WindowResult, bool, error) {
	if r.noCheckpoints || head == "" {
		return WindowResult{}, false, nil
	}
	var prune PrunePolicy
	if o.Prune != nil {
		prune = *o.Prune
	}
	res, ok, err := r.windowStored(ctx, lk, t, counter, head, o.Budget, prune, w)
	if err != nil || !ok {
		return WindowResult{}, false, err
	}
	res.Tract, res.Head, res.Encoding, res.TractID = t.Name, head, counter.Encoding(), t.ID
	if t.Spawn != nil {
		res.SpawnParent = t.Spawn.Parent
	}
	return res, true, nil
}

// windowOf cuts the window w asks for from a whole compile.
func windowOf(res Result, w WindowOptions) WindowResult {
	out := WindowResult{Result: res, Count: len(res.Messages), DroppedCount: len(res.Dropped)}
	out.From = windowStart(w.From, out.Count, w.N)
	out.Messages = res.Messages[out.From:min(out.Count, out.From+max(w.N, 0))]
	out.Dropped = res.Dropped[:min(len(res.Dropped), max(w.Dropped, 0))]
	out.PrunedCount = len(res.Pruned)
	for _, p := range res.Pruned {
		out.PrunedTokens += p.Tokens
	}
	out.Pruned = res.Pruned[:min(len(res.Pruned), max(w.Dropped, 0))]
	for i := 0; w.Head != nil && i < len(res.Messages); i++ {
		if !w.Head(&res.Messages[i]) {
			break
		}
	}
	return out
}

// windowStart is where the window of n from from starts among count
// messages.
func windowStart(from, count, n int) int {
	if from < 0 || from >= count {
		return max(0, count-max(n, 0))
	}
	return from
}

// windowStored is the window of t's compile at head read from the stored
// checkpoint's messages: from its pieces when it serves the compile as it
// is (window_pieces.go), else from the part whole (lent by a store that
// lends it) with the annotations after it patched in or the messages an
// older head lacks cut; ok is false when the checkpoint does not serve the
// compile, the part does not decode, or the budget cannot be met (the full
// compile says why). An active prune reads the messages twice: once for
// its choice (pruneFacts, a few bytes a message), once for the window.
func (r *Repo) windowStored(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash, budget int, prune PrunePolicy, w WindowOptions) (WindowResult, bool, error) {
	sc, ok, err := r.planStored(ctx, lk, t, counter, head, false, ViewHeader)
	if err != nil || !ok {
		return WindowResult{}, false, err
	}
	more := 0
	for _, m := range sc.more {
		more += m.Tokens
	}
	// A budget to meet or a prune reads every message for its choice, a
	// Head that reads all every message: the messages whole (one read,
	// one buffer) serve that better.
	whole := prune.Active() || budget > 0 && budget < sc.cv.Tokens+tokensPrimer+more || w.Head != nil && w.HeadReadsAll
	if sc.patch == nil && len(sc.cut) == 0 && !whole {
		ps, src, ok, err := r.pieceWindow(ctx, t, sc)
		if err != nil || !ok {
			return WindowResult{}, false, err
		}
		return r.windowOver(ctx, src, budget, prune, w, func() error { return ps.fail(ps.err) })
	}
	// read runs fn over the checkpoint's messages whole: lent, or read,
	// when they are still those planned.
	l, lends := r.store.(ViewLender)
	if !lends {
		l = readLender{r.store}
	}
	read := func(fn func(sc storedCompile)) (bool, error) {
		planned, ok := sc.cv, false
		err := l.LendCompiledView(ctx, t.ID, counter.Encoding(), func(cv CompiledView) error {
			if cv.Sum != planned.Sum {
				return nil // replaced since it was planned
			}
			if err := checkView(&cv); err != nil {
				return err
			}
			lent := sc
			lent.cv, ok = cv, true
			fn(lent)
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return false, err
		}
		return ok && err == nil, nil
	}
	var pr *windowPrune
	if prune.Active() {
		var f *pruneFacts
		good := false
		if ok, err := read(func(sc storedCompile) { f, good = sc.pruneFacts(t, prune) }); err != nil || !ok || !good {
			return WindowResult{}, false, err
		}
		pr = &windowPrune{}
		if pr.rule, pr.count, pr.tokens, err = r.rules(ctx, f, prune); err != nil {
			return WindowResult{}, false, err
		}
	}
	var res WindowResult
	good := false
	if ok, err := read(func(sc storedCompile) { res, good = sc.window(t, budget, pr, w) }); err != nil || !ok {
		return WindowResult{}, false, err
	}
	return res, good, nil
}

// windowOver is the window of src's messages under budget and prune;
// ok is false when they prove damaged (fail says why: an error, or none
// when the window is left to the full compile) or the budget cannot be
// met (the full compile says why).
func (r *Repo) windowOver(ctx context.Context, src windowSource, budget int, prune PrunePolicy, w WindowOptions, fail func() error) (WindowResult, bool, error) {
	var pr *windowPrune
	if prune.Active() {
		f, good := src.pruneFacts(prune)
		if !good {
			return WindowResult{}, false, fail()
		}
		pr = &windowPrune{}
		var err error
		if pr.rule, pr.count, pr.tokens, err = r.rules(ctx, f, prune); err != nil {
			return WindowResult{}, false, err
		}
	}
	res, good := src.window(budget, pr, w)
	if !good {
		return WindowResult{}, false, fail()
	}
	return res, true, nil
}

// readLender lends a checkpoint's messages a store reads whole.
type readLender struct{ s Reader }

func (l readLender) LendCompiledView(ctx context.Context, viewer, encoding string, fn func(CompiledView) error) error {
	cv, err := l.s.CompiledView(ctx, viewer, encoding, ViewMessages)
	if err != nil {
		return err
	}
	return fn(cv)
}

// windowPrune is a prune's choice over a stored compile's messages: the
// rule of each (pruneFacts.rules), how many it prunes and their tokens.
type windowPrune struct {
	rule          []uint8
	count, tokens int
}

func (pr *windowPrune) pruned(i int) bool { return pr != nil && pr.rule[i] != 0 }

// windowSource is what a window is read from: n messages, handed out in
// order by each, their tokens (the primer's included) and the tools in
// force.
type windowSource struct {
	n, tokens int
	tools     []ToolDef
	// each hands out the messages from the first into visit (see
	// storedCompile.each); arena says whether to make the hashes of
	// message i. want, when not nil, says whether message i is read at
	// all: visit is handed nil for one that is not (a source that reads
	// in pieces skips the pieces no message of which is wanted).
	each func(want func(i int) bool, arena func(i int) *hexArena, visit func(i int, m *Message) bool) bool
	// seekEach, when not nil, is each asking seek, before a piece, the
	// message to go on from: seek(i) returns i, or a later message, the
	// ones between accounted for by the caller (never visited or read).
	seekEach func(seek func(i int) int, want func(i int) bool, arena func(i int) *hexArena, visit func(i int, m *Message) bool) bool
}

// source is sc's messages as a window reads them; false when the part
// proves damaged.
func (sc storedCompile) source(t Tract) (windowSource, bool) {
	mr, sm, err := sc.open(t)
	if err != nil {
		return windowSource{}, false
	}
	stored := sc.stored(mr.size())
	src := windowSource{n: stored + len(sc.more), tokens: sm.tokens + tokensPrimer - sc.cutTokens(), tools: sm.tools}
	for _, m := range sc.more {
		src.tokens += m.Tokens
	}
	src.each = func(_ func(int) bool, arena func(int) *hexArena, visit func(int, *Message) bool) bool {
		return sc.each(t, stored, sm.slots, arena, visit)
	}
	return src, true
}

// pruneFacts reads what prune chooses by from sc's messages; false when
// the part proves damaged.
func (sc storedCompile) pruneFacts(t Tract, prune PrunePolicy) (*pruneFacts, bool) {
	src, ok := sc.source(t)
	if !ok {
		return nil, false
	}
	return src.pruneFacts(prune)
}

// pruneFacts reads what prune chooses by from src's messages; false when
// they prove damaged.
func (src windowSource) pruneFacts(prune PrunePolicy) (*pruneFacts, bool) {
	f := newPruneFacts(prune, src.n)
	arena := func(int) *hexArena { return nil }
	if prune.FailedTurns {
		// The commits of tool results are read back (their meta).
		scratch := &hexArena{}
		arena = func(int) *hexArena { scratch.buf = scratch.buf[:0]; return scratch }
	}
	good := src.each(nil, arena, func(_ int, m *Message) bool { f.add(m); return true })
	return f, good
}

// window reads the window from sc's messages (see windowStored), leaving
// out those pr prunes; what it keeps never shares their memory.
func (sc storedCompile) window(t Tract, budget int, pr *windowPrune, w WindowOptions) (WindowResult, bool) {
	src, ok := sc.source(t)
	if !ok {
		return WindowResult{}, false
	}
	return src.window(budget, pr, w)
}

// window reads the window from src's messages, leaving out those pr
// prunes; what it keeps never shares their memory. Only the messages it
// keeps, lists or hands to w.Head are wanted (windowSource.each).
func (src windowSource) window(budget int, pr *windowPrune, w WindowOptions) (WindowResult, bool) {
	n := src.n
	if pr != nil && len(pr.rule) != n {
		return WindowResult{}, false
	}
	res := WindowResult{Result: Result{Tokens: src.tokens, Tools: cloneTools(src.tools)}}
	all := func(arena func(i int) *hexArena, visit func(i int, m *Message) bool) bool {
		return src.each(nil, arena, visit)
	}
	kept := n
	if pr != nil {
		res.Tokens -= pr.tokens
		res.PrunedCount, res.PrunedTokens, kept = pr.count, pr.tokens, n-pr.count
		res.Dropped = []Dropped{} // as a pruned compile's (applyPrune)
	}
	var unit []int32
	var drop []bool
	if budget > 0 {
		res.Budget = &budget
		if res.Tokens > budget {
			var good bool
			var dropped int
			if unit, drop, dropped, good = windowBudget(n, budget, pr, &res, all); !good {
				return WindowResult{}, false
			}
			kept -= dropped
		}
		res.Dropped = []Dropped{}
	}
	res.Count, res.DroppedCount = kept, n-kept-res.PrunedCount
	res.From = windowStart(w.From, kept, w.N)
	end := min(kept, res.From+max(w.N, 0))
	listDropped, listPruned := min(res.DroppedCount, max(w.Dropped, 0)), min(res.PrunedCount, max(w.Dropped, 0))
	arena := newHexArena(min(kept, max(w.N, 0)) + listDropped + listPruned)
	dropped := func(i int) bool { return drop != nil && !pr.pruned(i) && drop[unit[i]] }
	k, listed, prunedListed, head := 0, 0, 0, w.Head != nil
	// scratch holds the hashes of one message handed to Head alone.
	scratch := &hexArena{}
	shown := func(i int) bool { return !pr.pruned(i) && !dropped(i) }
	// keep reports whether message i is kept or listed (its hashes made).
	keep := func(i int) bool {
		return pr.pruned(i) && prunedListed < listPruned || dropped(i) && listed < w.Dropped || shown(i) && k >= res.From && k < end
	}
	each := src.seeking(func() bool { return pr == nil && drop == nil && !head }, &k, res.From)
	good := each(func(i int) bool { return keep(i) || head && shown(i) }, func(i int) *hexArena {
		switch {
		case keep(i):
			return arena
		case head && w.Hashes && shown(i):
			scratch.buf = scratch.buf[:0]
			return scratch
		}
		return nil
	}, func(i int, m *Message) bool {
		switch {
		case pr.pruned(i) && prunedListed < listPruned:
			res.Pruned = append(res.Pruned, Pruned{Dropped: droppedRow(m), Rule: pruneRuleNames[pr.rule[i]]})
			prunedListed++
		case dropped(i) && listed < w.Dropped:
			res.Dropped = append(res.Dropped, droppedRow(m))
			listed++
		case !shown(i):
		default:
			if k >= res.From && k < end {
				res.Messages = append(res.Messages, m.Clone())
			}
			if head {
				head = w.Head(m)
			}
			k++
		}
		return head || k < end || listed < listDropped || prunedListed < listPruned
	})
	return res, good
}

// seeking is src's each for a window's pass counting the messages it
// shows in k: while plain (no prune, no budget's drops, no Head to hand
// them to) every message before the window's first, from, is only
// counted, so a source that seeks (seekEach) jumps the count there.
func (src windowSource) seeking(plain func() bool, k *int, from int) func(want func(int) bool, arena func(int) *hexArena, visit func(int, *Message) bool) bool {
	if src.seekEach == nil {
		return src.each
	}
	return func(want func(int) bool, arena func(int) *hexArena, visit func(int, *Message) bool) bool {
		return src.seekEach(func(i int) int {
			if !plain() || *k != i || *k >= from {
				return i
			}
			*k = from
			return from
		}, want, arena, visit)
	}
}

// droppedRow is m as a dropped (or pruned) message is listed, with
// strings of its own (its Commit is the arena's).
func droppedRow(m *Message) Dropped {
	return Dropped{Commit: m.Commit, Tract: strings.Clone(m.Tract), Type: m.Type, Priority: m.Priority, Tokens: m.Tokens}
}

// windowBudget is the budget's choice over the n messages each hands out,
// those pr prunes left aside (planBudget), with res's tokens set to what
// it keeps, and how many messages it drops; false when the part proves
// damaged or the budget cannot be met.
func windowBudget(n, budget int, pr *windowPrune, res *WindowResult, each func(arena func(i int) *hexArena, visit func(i int, m *Message) bool) bool) ([]int32, []bool, int, bool) {
	good := true
	unit, drop, total := planBudget(n, res.Tokens, budget, func(visit func(i int, m *Message)) {
		good = each(func(int) *hexArena { return nil }, func(i int, m *Message) bool {
			if !pr.pruned(i) {
				visit(i, m)
			}
			return true
		})
	})
	if !good || total > budget {
		return nil, nil, 0, false
	}
	res.DroppedTokens, res.Tokens = res.Tokens-total, total
	dropped := 0
	for i := range unit {
		if !pr.pruned(i) && drop[unit[i]] {
			dropped++
		}
	}
	return unit, drop, dropped, true
}

// Clone is m with strings and slices of its own (what keeps a message
// handed out with strings valid only during a call, as
// WindowOptions.Head's).
func (m *Message) Clone() Message {
	c := *m
	c.Commit = Hash(strings.Clone(string(m.Commit)))
	if m.Summarizes != nil {
		c.Summarizes = make([]Hash, len(m.Summarizes))
		for i, h := range m.Summarizes {
			c.Summarizes[i] = Hash(strings.Clone(string(h)))
		}
	}
	c.Content, c.Name, c.ToolCallID = strings.Clone(m.Content), strings.Clone(m.Name), strings.Clone(m.ToolCallID)
	c.Tract, c.TractID = strings.Clone(m.Tract), strings.Clone(m.TractID)
	if m.ToolCalls != nil {
		c.ToolCalls = make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			c.ToolCalls[i] = ToolCall{ID: strings.Clone(tc.ID), Name: strings.Clone(tc.Name), Arguments: strings.Clone(tc.Arguments)}
		}
	}
	return c
}

// each reads sc's messages in order from the start (the first stored
// of the checkpoint's, then the appended ones, slots after slots), into
// m; arena says whether to make the hashes of message i. false when the
// part proves damaged.
func (sc storedCompile) each(t Tract, stored, slots int, arena func(i int) *hexArena, visit func(i int, m *Message) bool) bool {
	mr, _, err := sc.open(t)
	if err != nil {
		return false
	}
	var m Message
	for i := 0; i < stored+len(sc.more); i++ {
		if i < stored {
			mr.arena = arena(i)
			if !mr.next(&m) {
				return false
			}
		} else {
			m = sc.more[i-stored]
			m.Slot += slots
		}
		if !visit(i, &m) {
			return true
		}
	}
	return sc.cutEnds(mr) && mr.err() == nil
}

// cutEnds reads the messages left after the stored ones sc's compile
// keeps and reports whether they are the ones it cuts.
func (sc storedCompile) cutEnds(mr *messagesReader) bool {
	if len(sc.cut) == 0 {
		return true
	}
	mr.arena = newHexArena(len(sc.cut))
	ms := make([]Message, len(sc.cut))
	for i := range ms {
		if !mr.next(&ms[i]) {
			return false
		}
	}
	return sc.cutMatches(ms)
}

// cloneTools is tools with strings of their own.
func cloneTools(tools []ToolDef) []ToolDef {
	out := make([]ToolDef, len(tools))
	for i, td := range tools {
		out[i] = ToolDef{Name: strings.Clone(td.Name), Description: strings.Clone(td.Description), Parameters: td.Parameters}
	}
	if tools == nil {
		return nil
	}
	return out
}
