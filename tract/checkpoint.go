package tract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentlineage/lineage/internal/tokens"
)

// Compile checkpoints. A cold compile reads the whole history; a fresh
// process compiling a tract again would read it all again. So the domain
// stores the compiled view of a viewer tract at its head (a CompiledView
// row per viewer and encoding): the linearization with each commit's
// decoded content and tokens, the annotations applied and the author
// tracts. A later compile reads that one row, checks it, and extends it to
// the current head exactly like the in-memory cache extends a view (see
// cache.go): commits and annotations are append-only, so a view at head H
// plus what was added after it is what a cold compile at a descendant of H
// produces. Nothing else changes a compile's input: budgets and formats
// apply after the view, the encoding is part of the key, and the format
// version below changes whenever the layout or the meaning of the data
// does (an older row is rebuilt, never read).
//
// Every field of the row is covered by Sum and the data by DataSum, both
// SHA-256: a row that does not match is damage (exit 3, listed by verify,
// removed by gc), never rendered. A row whose head is gone (gc) or whose
// viewer was deleted goes with them; export never writes one.

// viewFormat is the version of a checkpoint's layout (and of what it
// means: bump it when compile's rules change).
const viewFormat = 6

// checkpointEvery is how many commits a view may grow past its stored
// checkpoint before it is stored again (Options.CheckpointEvery).
const checkpointEvery = 64

// CheckpointError is a stored compile checkpoint that does not match its
// hash.
type CheckpointError struct {
	Viewer, Encoding string
	Head             Hash
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("compile checkpoint of tract %s (%s, head %s) does not match its hash: damaged, refusing to use it (run 'lineage tract verify'; 'lineage tract gc' removes it)",
		e.Viewer, e.Encoding, e.Head.Short())
}

// Unwrap makes a CheckpointError an ErrDamaged.
func (e *CheckpointError) Unwrap() error { return ErrDamaged }

// viewSum is the hash covering a checkpoint's fields.
func viewSum(cv *CompiledView) Hash {
	b := []byte("lineage compiled view\x00")
	for _, s := range []string{cv.Viewer, cv.Encoding, string(cv.Head), strconv.FormatInt(cv.AnnSeq, 10),
		strconv.Itoa(cv.Tokens), strconv.Itoa(cv.Format), string(cv.MessagesSum), string(cv.DataSum)} {
		b = append(b, s...)
		b = append(b, 0)
	}
	return sha256Hex(b)
}

// checkView verifies a checkpoint's sums (a part's only when read).
func checkView(cv *CompiledView) error {
	bad := viewSum(cv) != cv.Sum || !hashes(cv.MessagesSum, cv.Index)
	if !bad && cv.Messages != nil {
		bad = !piecesMatch(cv.Index, cv.Messages)
	}
	if !bad && cv.Data != nil {
		bad = !hashes(cv.DataSum, cv.Data)
	}
	if bad {
		return &CheckpointError{Viewer: cv.Viewer, Encoding: cv.Encoding, Head: cv.Head}
	}
	return nil
}

// loadCheckpoint returns the view stored for t in counter's encoding,
// checked and rendered, or nil when there is none usable (missing, of
// another format, or undecodable).
func (r *Repo) loadCheckpoint(ctx context.Context, t Tract, counter tokens.Counter) (*view, error) {
	cv, err := r.store.CompiledView(ctx, t.ID, counter.Encoding(), ViewData)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkView(&cv); err != nil {
		return nil, err
	}
	if cv.Format != viewFormat {
		return nil, nil
	}
	v, err := decodeView(cv.Data, t, counter)
	if err != nil || v.head != cv.Head || v.annSeq != cv.AnnSeq {
		return nil, nil // a layout this build reads differently: rebuild
	}
	v.render()
	v.saved = len(v.lin.order)
	return v, nil
}

// checkpoint is the row storing v, or nil when v's stored checkpoint is
// recent enough (or checkpoints are off).
func (r *Repo) checkpoint(v *view) *CompiledView {
	if !r.checkpointDue(v) {
		return nil
	}
	data := encodeView(v)
	msgs, pieces := encodePieces(v, r.checkpointPiece)
	index, parts := encodeIndex(pieces, msgs)
	cv := &CompiledView{Viewer: v.viewer.ID, Encoding: v.counter.Encoding(), Head: v.head, AnnSeq: v.annSeq,
		Tokens: v.tokens, Format: viewFormat, MessagesSum: sha256Hex(index), DataSum: sha256Hex(data),
		Index: index, Messages: msgs, Pieces: parts, Data: data}
	cv.Sum = viewSum(cv)
	return cv
}

// checkpointDue reports whether v is to be stored as its tract's
// checkpoint: checkpoints are on and v has grown checkpointEvery commits
// past the one stored from it (or none was).
func (r *Repo) checkpointDue(v *view) bool {
	return !r.noCheckpoints && v.head != "" && (v.saved == 0 || len(v.lin.order)-v.saved >= r.checkpointEvery)
}

// storedTokens returns the compiled tokens of t at head from the stored
// checkpoint's header, without its data or the history: at head when no
// annotation came after it, or at an ancestor of head that head extends
// by plain appends (see tokensAfter). ok is false when only a compile can
// tell.
func (r *Repo) storedTokens(ctx context.Context, t Tract, head Hash) (int, bool, error) {
	if r.noCheckpoints || head == "" {
		return 0, false, nil
	}
	counter, err := r.counterName("")
	if err != nil {
		return 0, false, nil
	}
	cv, err := r.store.CompiledView(ctx, t.ID, counter, ViewHeader)
	if errors.Is(err, ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if err := checkView(&cv); err != nil {
		return 0, false, err
	}
	if cv.Format != viewFormat {
		return 0, false, nil
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{AfterSeq: cv.AnnSeq})
	if err != nil || len(anns) > 0 {
		return 0, false, err
	}
	if cv.Head == head {
		return cv.Tokens, true, nil
	}
	more, ok, err := r.tokensAfter(ctx, t, cv.Head, head)
	return cv.Tokens + more, ok, err
}

// statusWalk bounds the commits status reads past a checkpoint before a
// compile is cheaper.
const statusWalk = 256

// tokensAfter is what the commits from base (exclusive) to head add to a
// compile of t (see appendsAfter).
func (r *Repo) tokensAfter(ctx context.Context, t Tract, base, head Hash) (int, bool, error) {
	counter, err := r.counter("")
	if err != nil {
		return 0, false, err
	}
	msgs, ok, err := r.appendsAfter(ctx, t, counter, base, head, statusWalk, false)
	sum := 0
	for _, m := range msgs {
		sum += m.Tokens
	}
	return sum, ok, err
}

// appendsAfter renders the commits from base (exclusive) to head as a
// compile of t does, when head extends base by at most limit plain appends
// a warm compile renders one by one (extendRendered's rule: no merge, edit,
// compression, named instruction, tools or selection; no seed of another
// tract, no other tract's commit in a spawned tract (its view may inherit
// them); no annotation on them). The messages' slots count from the first
// appended commit; uncounted leaves contents without a stored count
// uncounted (Tokens -1). It reads base, those commits, their blobs and
// their annotations, nothing older; ok is false when only a compile can
// tell.
func (r *Repo) appendsAfter(ctx context.Context, t Tract, counter tokens.Counter, base, head Hash, limit int, uncounted bool) ([]Message, bool, error) {
	// Positions tell at once whether head can extend base by so few
	// commits (an --at an ancestor cannot).
	depth := int64(-1)
	if bc, err := r.store.Commit(ctx, base); err == nil && bc.Pos.Known() {
		depth = bc.Pos.Depth
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, false, err
	}
	var chain []*Commit
	for h := head; h != base; {
		if h == "" || len(chain) == limit {
			return nil, false, nil
		}
		c, err := r.store.Commit(ctx, h)
		if errors.Is(err, ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if depth >= 0 && c.Pos.Known() && (c.Pos.Depth <= depth || c.Pos.Depth > depth+int64(limit)) {
			return nil, false, nil
		}
		if len(c.Parents) != 1 || c.Operation != OpAppend || selectionOf(&c) != nil || (c.Tract != t.ID && t.Spawn != nil) {
			return nil, false, nil
		}
		anns, err := r.store.Annotations(ctx, AnnotationQuery{Commit: c.Hash})
		if err != nil || len(anns) > 0 {
			return nil, false, err
		}
		chain = append(chain, &c)
		h = c.Parents[0]
	}
	slices.Reverse(chain)
	v := newView(t, counter)
	v.lin.order = chain
	v.uncounted = uncounted
	if err := r.loadEntries(ctx, v, 0); err != nil {
		return nil, false, err
	}
	if err := r.loadTracts(ctx, v, 0); err != nil {
		return nil, false, err
	}
	r.keep(ctx, v, false) // token counts made on the way
	var msgs []Message
	for i, c := range chain {
		content := &v.entries[i].content
		if (content.Type == TypeInstruction && content.Name != "") || content.Type == TypeTools || (content.Seed && c.Tract != t.ID) {
			return nil, false, nil
		}
		if p, ok := v.candidate(i, content); ok {
			msgs = append(msgs, v.message(i, content, v.entries[i].tokens, p))
		}
	}
	return msgs, true, nil
}

// storedCompile is what a cold compile from the stored checkpoint's
// messages starts from: the checkpoint's messages part, checked, and the
// messages of the plain appends after it (appendsAfter).
type storedCompile struct {
	cv   CompiledView
	more []Message
	// cut are the messages of the stored ones' end that a compile of an
	// ancestor of the checkpoint's head leaves out (planStored).
	cut []Message
	// patch is the annotations made after the checkpoint, when they can
	// be applied to its messages (checkpoint_patch.go).
	patch *annPatch
}

// stored is how many of the stored messages (n of them) sc's compile
// keeps.
func (sc storedCompile) stored(n int) int { return max(0, n-len(sc.cut)) }

// cutTokens are the tokens of the messages sc's compile leaves out.
func (sc storedCompile) cutTokens() int {
	sum := 0
	for _, m := range sc.cut {
		sum += m.Tokens
	}
	return sum
}

// cutMatches reports whether the stored messages end with sc's cut ones.
func (sc storedCompile) cutMatches(ms []Message) bool {
	if len(sc.cut) > len(ms) {
		return false
	}
	for i, m := range ms[len(ms)-len(sc.cut):] {
		if m.Commit != sc.cut[i].Commit || m.Content != sc.cut[i].Content {
			return false
		}
	}
	return true
}

// lookup is what one compile learned of its tract's stored checkpoint,
// so that it looks the row up once: whether a plan ran (and did not serve
// the compile: it would not serve it now), and whether there is no row
// this build reads (none stored, or of another format).
type lookup struct {
	planned bool
	absent  bool
	// behind: the compile's head is no descendant of the stored
	// checkpoint's (an --at an ancestor, the older side of a diff): the
	// checkpoint cannot serve it and is not decoded.
	behind bool
}

// planStored finds whether the stored checkpoint serves a cold compile of
// t at head: no annotation came after it, and head is its head or extends
// it by fewer than checkpointEvery plain appends. It reads neither the
// history nor the checkpoint's data; ok is false when only a full compile
// can tell. With uncounted, an appended content the store has no count for
// is left uncounted (Tokens -1).
// part is ViewMessages, or ViewHeader for a plan whose messages are read
// later (lendStoredOpenAI).
func (r *Repo) planStored(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash, uncounted bool, part ViewPart) (storedCompile, bool, error) {
	lk.planned = true
	cv, err := r.store.CompiledView(ctx, t.ID, counter.Encoding(), part)
	if errors.Is(err, ErrNotFound) {
		lk.absent = true
		return storedCompile{}, false, nil
	}
	if err != nil {
		return storedCompile{}, false, err
	}
	if err := checkView(&cv); err != nil {
		return storedCompile{}, false, err
	}
	if cv.Format != viewFormat {
		lk.absent = true
		return storedCompile{}, false, nil
	}
	sc := storedCompile{cv: cv}
	behind := false
	if head != cv.Head {
		if behind, err = r.notAfter(ctx, head, cv.Head); err != nil {
			return storedCompile{}, false, err
		}
	}
	if behind {
		// A head the checkpoint's head extends by a few plain appends
		// (compile --at HEAD~1, the older side of a diff): the stored
		// messages without those the appends render.
		var ok bool
		sc.cut, ok, err = r.appendsAfter(ctx, t, counter, head, cv.Head, checkpointEvery-1, false)
		if err != nil || !ok {
			lk.behind = true
			return storedCompile{}, false, err
		}
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{AfterSeq: cv.AnnSeq})
	if err == nil && len(anns) > 0 && !behind {
		sc.patch = newPatch(t, anns)
	}
	if err != nil || len(anns) > 0 && sc.patch == nil {
		lk.behind = behind
		return storedCompile{}, false, err
	}
	if head != cv.Head && !behind {
		var ok bool
		sc.more, ok, err = r.appendsAfter(ctx, t, counter, cv.Head, head, checkpointEvery-1, uncounted)
		if err != nil || !ok {
			return storedCompile{}, false, err
		}
	}
	return sc, true, nil
}

// notAfter reports whether head, a commit other than base, lies at or
// above base's depth on the graph: then it cannot extend base. false when
// the positions do not tell.
func (r *Repo) notAfter(ctx context.Context, head, base Hash) (bool, error) {
	hc, err := r.store.Commit(ctx, head)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	bc, err := r.store.Commit(ctx, base)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return hc.Pos.Known() && bc.Pos.Known() && hc.Pos.Depth <= bc.Pos.Depth, nil
}

// compileStored is a cold compile from the stored checkpoint's messages
// (planStored): the stored messages and the appended ones', budget
// applied; ok is false when only a full compile can tell. With uncounted,
// so is the result of an uncounted append (Tokens -1).
func (r *Repo) compileStored(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash, budget int, uncounted bool) (Result, bool, error) {
	sc, ok, err := r.planStored(ctx, lk, t, counter, head, uncounted, ViewMessages)
	if err != nil || !ok {
		return Result{}, false, err
	}
	return sc.result(t, budget)
}

// result is the compile sc plans: the stored messages and the appended
// ones, budget applied; ok is false when the part does not decode.
func (sc storedCompile) result(t Tract, budget int) (Result, bool, error) {
	mr, sm, err := sc.open(t)
	if err == nil {
		sm, err = decodeFrom(mr, sm, len(sc.more))
	}
	if err != nil || !sc.cutMatches(sm.messages) {
		return Result{}, false, nil // a layout this build reads differently: rebuild
	}
	sm.messages = sm.messages[:sc.stored(len(sm.messages))]
	res := Result{Tokens: sm.tokens + tokensPrimer - sc.cutTokens(), Messages: sm.messages, Tools: sm.tools}
	for _, m := range sc.more {
		m.Slot += sm.slots
		res.Messages = append(res.Messages, m)
		switch {
		case m.Tokens < 0:
			res.Tokens = -1
		case res.Tokens >= 0:
			res.Tokens += m.Tokens
		}
	}
	if budget > 0 {
		res.Budget = &budget
		err = applyBudget(&res, budget)
	}
	return res, true, err
}

// serveStored hands t's cold compile at head to use from the stored
// checkpoint when it serves it (planStored); done is false, with use not
// called, when only a full compile can tell. From a store that lends the
// messages part (ViewLender) the plan reads the checkpoint's header, then
// the part is lent, checked to be the one planned, and handed out from
// the store's memory.
func (r *Repo) serveStored(ctx context.Context, lk *lookup, use func(*Messages) error, t Tract, counter tokens.Counter, head Hash, uncounted bool) (bool, error) {
	l, lends := r.store.(ViewLender)
	part := ViewMessages
	if lends {
		part = ViewHeader
	}
	sc, ok, err := r.planStored(ctx, lk, t, counter, head, uncounted, part)
	if err != nil || !ok {
		return false, err
	}
	if lends {
		planned, written, kept := sc.cv, false, false
		err := l.LendCompiledView(ctx, t.ID, counter.Encoding(), func(cv CompiledView) error {
			if cv.Sum != planned.Sum {
				return nil // replaced since it was planned
			}
			if err := checkView(&cv); err != nil {
				return err
			}
			done, err := streamStored(use, t, storedCompile{cv: cv, more: sc.more, cut: sc.cut, patch: sc.patch})
			if written = done; !done {
				sc.cv, kept = cv, true
				sc.cv.Messages = bytes.Clone(cv.Messages)
			}
			return err
		})
		if written || (err != nil && !errors.Is(err, ErrNotFound)) {
			return true, err
		}
		if !kept {
			return false, nil // gone or replaced meanwhile
		}
	} else if done, err := streamStored(use, t, sc); done {
		return true, err
	}
	// Messages that are not all plain: all of them at once.
	res, ok, err := sc.result(t, 0)
	if !ok && err == nil {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	return true, use(heldMessages(t.Name, res.Messages))
}

// counterName is the name of an encoding ("" is the default) without
// loading its tokenizer.
func (r *Repo) counterName(encoding string) (string, error) {
	c, err := r.counter(encoding)
	if err != nil {
		return "", err
	}
	return c.Encoding(), nil
}
