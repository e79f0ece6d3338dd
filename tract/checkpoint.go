package tract

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

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
	bad := viewSum(cv) != cv.Sum
	if !bad && cv.Messages != nil {
		bad = !hashes(cv.MessagesSum, cv.Messages)
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
	data, msgs := encodeView(v), encodeMessages(v)
	cv := &CompiledView{Viewer: v.viewer.ID, Encoding: v.counter.Encoding(), Head: v.head, AnnSeq: v.annSeq,
		Tokens: v.tokens, Format: viewFormat, MessagesSum: sha256Hex(msgs), DataSum: sha256Hex(data), Messages: msgs, Data: data}
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
}

// planStored finds whether the stored checkpoint serves a cold compile of
// t at head: no annotation came after it, and head is its head or extends
// it by fewer than checkpointEvery plain appends. It reads neither the
// history nor the checkpoint's data; ok is false when only a full compile
// can tell. With uncounted, an appended content the store has no count for
// is left uncounted (Tokens -1).
// part is ViewMessages, or ViewHeader for a plan whose messages are read
// later (lendStoredOpenAI).
func (r *Repo) planStored(ctx context.Context, t Tract, counter tokens.Counter, head Hash, uncounted bool, part ViewPart) (storedCompile, bool, error) {
	cv, err := r.store.CompiledView(ctx, t.ID, counter.Encoding(), part)
	if errors.Is(err, ErrNotFound) {
		return storedCompile{}, false, nil
	}
	if err != nil {
		return storedCompile{}, false, err
	}
	if err := checkView(&cv); err != nil {
		return storedCompile{}, false, err
	}
	if cv.Format != viewFormat {
		return storedCompile{}, false, nil
	}
	anns, err := r.store.Annotations(ctx, AnnotationQuery{AfterSeq: cv.AnnSeq})
	if err != nil || len(anns) > 0 {
		return storedCompile{}, false, err
	}
	sc := storedCompile{cv: cv}
	if head != cv.Head {
		var ok bool
		sc.more, ok, err = r.appendsAfter(ctx, t, counter, cv.Head, head, checkpointEvery-1, uncounted)
		if err != nil || !ok {
			return storedCompile{}, false, err
		}
	}
	return sc, true, nil
}

// compileStored is a cold compile from the stored checkpoint's messages
// (planStored): the stored messages and the appended ones', budget
// applied; ok is false when only a full compile can tell. With uncounted,
// so is the result of an uncounted append (Tokens -1).
func (r *Repo) compileStored(ctx context.Context, t Tract, counter tokens.Counter, head Hash, budget int, uncounted bool) (Result, bool, error) {
	sc, ok, err := r.planStored(ctx, t, counter, head, uncounted, ViewMessages)
	if err != nil || !ok {
		return Result{}, false, err
	}
	return sc.result(t, budget)
}

// result is the compile sc plans: the stored messages and the appended
// ones, budget applied; ok is false when the part does not decode.
func (sc storedCompile) result(t Tract, budget int) (Result, bool, error) {
	sm, err := decodeMessages(sc.cv.Messages, t, sc.cv.Head, len(sc.more))
	if err != nil {
		return Result{}, false, nil // a layout this build reads differently: rebuild
	}
	res := Result{Tokens: sm.tokens + tokensPrimer, Messages: sm.messages, Tools: sm.tools}
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

// writeStored writes the openai format of t's cold compile at head from
// the stored checkpoint when it serves it (planStored); done is false, with
// nothing written, when only a full compile can tell. From a store that
// lends the messages part (ViewLender) the plan reads the checkpoint's
// header, then the part is lent, checked to be the one planned, and
// written from the store's memory.
func (r *Repo) writeStored(ctx context.Context, w io.Writer, t Tract, counter tokens.Counter, head Hash, uncounted bool, indent string) (bool, error) {
	l, lends := r.store.(ViewLender)
	part := ViewMessages
	if lends {
		part = ViewHeader
	}
	sc, ok, err := r.planStored(ctx, t, counter, head, uncounted, part)
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
			done, err := writeStoredOpenAI(w, t, storedCompile{cv: cv, more: sc.more}, indent)
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
	} else if done, err := writeStoredOpenAI(w, t, sc, indent); done {
		return true, err
	}
	// Messages the APIs' repair reorders: all of them at once.
	res, ok, err := sc.result(t, 0)
	if !ok && err == nil {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	res.Tract, res.Head, res.Encoding = t.Name, head, counter.Encoding()
	return true, WriteOpenAI(w, res, indent)
}

// writeStoredOpenAI writes the openai format of the stored checkpoint's
// messages and the appended ones (planStored) as WriteOpenAI writes a
// result, one message at a time: when neither needs the APIs' repair,
// nothing of the context is held in memory but the part itself. ok is
// false, with nothing written, when they do or the part does not decode.
func writeStoredOpenAI(w io.Writer, t Tract, sc storedCompile, indent string) (bool, error) {
	mr, sm, err := openMessages(sc.cv.Messages, t, sc.cv.Head)
	if err != nil || sm.repair || needsRepair(sc.more) {
		return false, nil
	}
	stored := mr.left
	n := stored + len(sc.more)
	if n == 0 {
		return true, fmt.Errorf("tract %s: %w", t.Name, ErrEmptyContext)
	}
	var m Message
	err = writeJSONArray(w, n, indent, func(a *jsonAppender, i int) {
		if i < stored {
			mr.next(&m)
		} else {
			m = sc.more[i-stored]
		}
		om := openAIMessage(&m)
		a.message(&om, 1)
	})
	if err == nil && mr.err() != nil {
		// The part matched its sum, so only a layout this build reads
		// differently gets here, half-written: say so.
		err = fmt.Errorf("compile checkpoint of tract %s (%s, head %s): %w", t.Name, sc.cv.Encoding, sc.cv.Head.Short(), errViewData)
	}
	return true, err
}

// The data layout: unsigned varints, strings as a varint length and their
// bytes, hashes as their 32 bytes, and a commit's parents and edit target
// as references to the commits before it. Decoding slices strings out of
// the data without a copy and makes every hex hash in one allocation.
type viewWriter struct{ b []byte }

func (w *viewWriter) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *viewWriter) int(n int64)   { w.b = binary.AppendVarint(w.b, n) }
func (w *viewWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *viewWriter) toolCalls(calls []ToolCall) {
	w.uint(uint64(len(calls)))
	for _, tc := range calls {
		w.str(tc.ID)
		w.str(tc.Name)
		w.str(tc.Arguments)
	}
}

// enum writes s as its place in known (from 1), or 0 and s.
func (w *viewWriter) enum(s string, known []string) {
	if i := slices.Index(known, s); i >= 0 {
		w.uint(uint64(i) + 1)
		return
	}
	w.uint(0)
	w.str(s)
}

func (w *viewWriter) bool(b bool) {
	if b {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *viewWriter) time(t time.Time) {
	if t.IsZero() {
		w.bool(false)
		return
	}
	w.bool(true)
	w.int(t.UnixNano())
}

// hash writes a hash as its 32 bytes (a malformed one as zeros: it then
// decodes to another hash, and the view to another head, never read).
func (w *viewWriter) hash(h Hash) {
	var raw [32]byte
	_, _ = hex.Decode(raw[:], []byte(h))
	w.b = append(w.b, raw[:]...)
}

// ref writes a hash commit i names (a parent, an edit target): k ≥ 2 is
// the commit k-1 places before i in the linearization (a commit's
// ancestors always come before it), 1 a hash that follows.
func (w *viewWriter) ref(v *view, i int, h Hash) {
	if j, ok := v.lin.index(h); ok && j < i {
		w.uint(uint64(i-j) + 1)
		return
	}
	w.uint(1)
	w.hash(h)
}

func encodeView(v *view) []byte {
	w := &viewWriter{b: make([]byte, 0, 64+len(v.lin.order)*256)}
	w.uint(viewFormat)
	w.str(v.viewer.ID)
	w.str(string(v.head))
	w.int(v.annSeq)
	// Author tracts, in a fixed order of first use.
	ids := make([]string, 0, len(v.tracts))
	index := map[string]int{}
	add := func(id string) {
		if _, ok := index[id]; !ok && id != "" {
			index[id] = len(ids)
			ids = append(ids, id)
		}
	}
	add(v.viewer.ID)
	for _, c := range v.lin.order {
		add(c.Tract)
	}
	for i := 0; i < len(ids); i++ { // spawn ancestors too
		if t, ok := v.tracts[ids[i]]; ok && t.Spawn != nil {
			add(t.Spawn.Parent)
		}
	}
	n := 0
	for _, id := range ids {
		if _, ok := v.tracts[id]; ok {
			n++
		}
	}
	w.uint(uint64(n))
	for _, id := range ids {
		t, ok := v.tracts[id]
		if !ok {
			continue
		}
		w.str(t.ID)
		w.str(t.Name)
		w.time(t.Created)
		w.time(t.Deleted)
		w.bool(t.Spawn != nil)
		if s := t.Spawn; s != nil {
			w.str(s.Parent)
			w.str(string(s.Commit))
			w.str(s.Purpose)
			w.str(string(s.Mode))
			w.time(s.Time)
		}
	}
	// Annotations: only the newest per (viewer, commit) counts, which is
	// all the view keeps; sorted so equal views encode equally.
	keys := make([]annKey, 0, len(v.ann))
	for k := range v.ann {
		keys = append(keys, k)
	}
	sortAnnKeys(keys)
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		w.str(k.viewer)
		w.str(string(k.commit))
		w.str(string(v.ann[k]))
	}
	w.uint(uint64(len(v.lin.order)))
	for i, c := range v.lin.order {
		w.hash(c.Hash)
		w.uint(uint64(len(c.Parents)))
		for _, p := range c.Parents {
			w.ref(v, i, p)
		}
		if c.EditTarget == "" {
			w.uint(0)
		} else {
			w.ref(v, i, c.EditTarget)
		}
		w.bool(c.Content != "")
		if c.Content != "" {
			w.hash(c.Content)
		}
		w.str(string(c.Operation))
		w.uint(uint64(index[c.Tract]))
		w.int(c.Time.UnixNano())
		w.str(c.Message)
		w.str(string(c.Meta))
		e := &v.entries[i]
		w.int(int64(e.tokens))
		ct := &e.content
		w.str(string(ct.Type))
		w.str(ct.Role)
		w.str(ct.Name)
		w.str(ct.Text)
		w.str(ct.ToolCallID)
		w.toolCalls(ct.ToolCalls)
		w.uint(uint64(len(ct.Tools)))
		for _, td := range ct.Tools {
			w.str(td.Name)
			w.str(td.Description)
			w.str(string(td.Parameters))
		}
		w.bool(ct.Seed)
		w.str(string(ct.From))
	}
	return w.b
}

// viewReader reads the layout back; strings share the data's memory.
type viewReader struct {
	s   string
	err error
}

var errViewData = errors.New("compiled view data cut short")

func (r *viewReader) uint() uint64 {
	// Most numbers are one byte: read those in line.
	if s := r.s; s != "" && s[0] < 0x80 {
		r.s = s[1:]
		return uint64(s[0])
	}
	return r.uvarint()
}

func (r *viewReader) uvarint() uint64 {
	n, k := binary.Uvarint(unsafe.Slice(unsafe.StringData(r.s), len(r.s)))
	if k <= 0 {
		r.fail()
		return 0
	}
	r.s = r.s[k:]
	return n
}

func (r *viewReader) int() int64 {
	n, k := binary.Varint(unsafe.Slice(unsafe.StringData(r.s), len(r.s)))
	if k <= 0 {
		r.fail()
		return 0
	}
	r.s = r.s[k:]
	return n
}

func (r *viewReader) fail() {
	if r.err == nil {
		r.err = errViewData
	}
	r.s = ""
}

func (r *viewReader) str() string {
	// Most strings are shorter than 128 bytes: a one-byte length.
	if s := r.s; s != "" && s[0] < 0x80 && int(s[0]) < len(s) {
		n := int(s[0]) + 1
		r.s = s[n:]
		return s[1:n]
	}
	n := r.uint()
	if n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// toolCalls reads what viewWriter.toolCalls wrote (nil for none).
func (r *viewReader) toolCalls() []ToolCall {
	k := r.count()
	if k == 0 {
		return nil
	}
	calls := make([]ToolCall, k)
	for j := range calls {
		calls[j] = ToolCall{ID: r.str(), Name: r.str(), Arguments: r.str()}
	}
	return calls
}

// enum reads what viewWriter.enum wrote: the known string itself (no
// copy of the data kept alive for it), or the one that follows.
func (r *viewReader) enum(known []string) string {
	k := r.uint()
	switch {
	case k == 0:
		return r.str()
	case k <= uint64(len(known)):
		return known[k-1]
	}
	r.fail()
	return ""
}

func (r *viewReader) bool() bool {
	if len(r.s) == 0 {
		r.fail()
		return false
	}
	b := r.s[0] == 1
	r.s = r.s[1:]
	return b
}

func (r *viewReader) time() time.Time {
	if !r.bool() {
		return time.Time{}
	}
	return time.Unix(0, r.int()).UTC()
}

// count reads a length that cannot exceed what is left of the data.
func (r *viewReader) count() int {
	n := r.uint()
	if n > uint64(len(r.s)) {
		r.fail()
		return 0
	}
	return int(n)
}

// hexArena makes hex hashes inside one allocation.
type hexArena struct{ buf []byte }

func newHexArena(n int) *hexArena { return &hexArena{buf: make([]byte, 0, 64*n)} }

// hash reads a 32-byte hash and returns it as hex.
func (a *hexArena) hash(r *viewReader) Hash {
	if len(r.s) < 32 {
		r.fail()
		return ""
	}
	if cap(a.buf)-len(a.buf) < 64 {
		a.buf = make([]byte, 0, 64*1024)
	}
	at := len(a.buf)
	a.buf = hex.AppendEncode(a.buf, []byte(r.s[:32]))
	r.s = r.s[32:]
	// The bytes are never written again: the string can share them.
	return Hash(unsafe.String(&a.buf[at], 64))
}

// ref reads what viewWriter.ref wrote for commit i.
func (r *viewReader) ref(commits []Commit, i int, a *hexArena) Hash {
	return r.refOf(r.uint(), commits, i, a)
}

func (r *viewReader) refOf(k uint64, commits []Commit, i int, a *hexArena) Hash {
	switch {
	case k == 1:
		return a.hash(r)
	case k >= 2 && k-1 <= uint64(i):
		return commits[i-int(k-1)].Hash
	}
	r.fail()
	return ""
}

// operation and contentType share the constants' strings (no copy of
// the data's bytes kept alive for them).
func operation(s string) Operation {
	for _, op := range []Operation{OpAppend, OpEdit, OpMerge, OpCompress} {
		if string(op) == s {
			return op
		}
	}
	return Operation(s)
}

func contentType(s string) Type {
	for _, t := range Types {
		if string(t) == s {
			return t
		}
	}
	return Type(s)
}

func decodeView(data []byte, viewer Tract, counter tokens.Counter) (*view, error) {
	if len(data) == 0 {
		return nil, errViewData
	}
	r := &viewReader{s: unsafe.String(&data[0], len(data))}
	if r.uint() != viewFormat || r.str() != viewer.ID {
		return nil, errViewData
	}
	v := newView(viewer, counter)
	v.head = Hash(r.str())
	v.annSeq = r.int()
	nt := r.count()
	ids := make([]string, 0, nt)
	for range nt {
		t := Tract{ID: r.str(), Name: r.str(), Created: r.time(), Deleted: r.time()}
		if r.bool() {
			t.Spawn = &SpawnPointer{Parent: r.str(), Commit: Hash(r.str()), Purpose: r.str(), Mode: SpawnMode(r.str()), Time: r.time()}
		}
		ids = append(ids, t.ID)
		if t.ID != viewer.ID {
			v.tracts[t.ID] = t
		}
	}
	na := r.count()
	for range na {
		k := annKey{viewer: r.str(), commit: Hash(r.str())}
		v.ann[k] = Priority(r.str())
	}
	n := r.count()
	commits := make([]Commit, n)
	// Room to grow, as a rendered view has: the next compile appends.
	v.lin.order = make([]*Commit, n, n+n/8+64)
	v.lin.emitted = nil // made when first asked
	v.entries = make([]entry, n, n+n/8+64)
	// Every commit's hash and content hash as hex in one string; parents
	// and edit targets are mostly earlier commits' strings.
	arena := newHexArena(2 * n)
	var parents []Hash
	for i := range commits {
		c := &commits[i]
		c.Hash = arena.hash(r)
		np := r.count()
		if len(parents) < np {
			parents = make([]Hash, max(np, 1024))
		}
		c.Parents, parents = parents[:np:np], parents[np:]
		for j := range c.Parents {
			c.Parents[j] = r.ref(commits, i, arena)
		}
		if k := r.uint(); k > 0 {
			c.EditTarget = r.refOf(k, commits, i, arena)
		}
		if r.bool() {
			c.Content = arena.hash(r)
		}
		c.Operation = operation(r.str())
		if ti := r.uint(); ti < uint64(len(ids)) {
			c.Tract = ids[ti]
		} else {
			r.fail()
		}
		c.Time = time.Unix(0, r.int()).UTC()
		c.Message = r.str()
		if m := r.str(); m != "" {
			c.Meta = []byte(m)
		}
		e := &v.entries[i]
		e.tokens = int(r.int())
		ct := &e.content
		ct.Type, ct.Role, ct.Name, ct.Text, ct.ToolCallID = contentType(r.str()), r.str(), r.str(), r.str(), r.str()
		ct.ToolCalls = r.toolCalls()
		if k := r.count(); k > 0 {
			ct.Tools = make([]ToolDef, k)
			for j := range ct.Tools {
				ct.Tools[j] = ToolDef{Name: r.str(), Description: r.str(), Parameters: []byte(r.str())}
			}
		}
		ct.Seed = r.bool()
		ct.From = Hash(r.str())
		v.lin.order[i] = c
		if r.err != nil {
			return nil, r.err
		}
	}
	if r.err != nil || r.s != "" {
		return nil, errViewData
	}
	return v, nil
}

// The messages layout: the view's rendered messages as compile returns
// them, with the tracts they name and the tools in force, in the data
// layout's encoding. A header says whether the messages need the chat
// APIs' repair (needsRepair), so a compile that only writes them in the
// openai format can stream them; a commit hash is its 32 bytes (hashRef).
func encodeMessages(v *view) []byte {
	size := 64
	for i := range v.rendered {
		size += 64 + len(v.rendered[i].Content)
	}
	w := &viewWriter{b: make([]byte, 0, size)}
	w.uint(viewFormat)
	w.str(v.viewer.ID)
	w.str(string(v.head))
	w.uint(uint64(len(v.lin.order)))
	w.int(int64(v.tokens))
	w.bool(needsRepair(v.rendered))
	w.uint(uint64(len(v.tools)))
	for _, td := range v.tools {
		w.str(td.Name)
		w.str(td.Description)
		w.str(string(td.Parameters))
	}
	// Author tracts, in order of first use.
	var ids, names []string
	index := map[string]int{}
	for i := range v.rendered {
		m := &v.rendered[i]
		if _, ok := index[m.TractID]; !ok {
			index[m.TractID] = len(ids)
			ids, names = append(ids, m.TractID), append(names, m.Tract)
		}
	}
	w.uint(uint64(len(ids)))
	for i := range ids {
		w.str(ids[i])
		w.str(names[i])
	}
	w.uint(uint64(len(v.rendered)))
	slot := 0 // slots as differences: mostly 1
	for i := range v.rendered {
		m := &v.rendered[i]
		w.enum(m.Role, storedRoles)
		w.str(m.Content)
		w.str(m.Name)
		w.str(m.ToolCallID)
		w.toolCalls(m.ToolCalls)
		w.enum(string(m.Type), storedTypes)
		w.enum(string(m.Priority), storedPriorities)
		w.int(int64(m.Tokens))
		w.hashRef(m.Commit)
		w.uint(uint64(index[m.TractID]))
		w.int(int64(m.Slot - slot))
		slot = m.Slot
		w.uint(uint64(len(m.Summarizes)))
		for _, h := range m.Summarizes {
			w.hashRef(h)
		}
	}
	return w.b
}

// hashRef writes a commit hash of the messages layout: 1 and its 32
// bytes, or (not a lowercase hex SHA-256, which no commit has) 0 and the
// string.
func (w *viewWriter) hashRef(h Hash) {
	var raw [32]byte
	if len(h) == 64 {
		if _, err := hex.Decode(raw[:], []byte(h)); err == nil && hex.EncodeToString(raw[:]) == string(h) {
			w.uint(1)
			w.b = append(w.b, raw[:]...)
			return
		}
	}
	w.uint(0)
	w.str(string(h))
}

// hashRef reads what viewWriter.hashRef wrote; with a nil arena a hash
// written as bytes is skipped ("").
func (r *viewReader) hashRef(a *hexArena) Hash {
	switch r.uint() {
	case 0:
		return Hash(r.str())
	case 1:
		if a != nil {
			return a.hash(r)
		}
		if len(r.s) < 32 {
			r.fail()
			return ""
		}
		r.s = r.s[32:]
		return ""
	}
	r.fail()
	return ""
}

// storedMessages are a checkpoint's messages decoded.
type storedMessages struct {
	messages []Message
	tools    []ToolDef
	tokens   int
	// slots is the length of the view's linearization.
	slots int
	// repair tells whether the messages need the APIs' repair.
	repair bool
}

// messagesReader reads a messages part one message at a time; strings
// share the part's memory.
type messagesReader struct {
	r       viewReader
	authors [][2]string
	// arena makes the commit hashes (nil: they are skipped).
	arena *hexArena
	slot  int
	// left is how many messages are still to be read.
	left int
}

// openMessages reads the header of what encodeMessages wrote for viewer
// at head, up to the first message.
func openMessages(data []byte, viewer Tract, head Hash) (*messagesReader, storedMessages, error) {
	var sm storedMessages
	if len(data) == 0 {
		return nil, sm, errViewData
	}
	mr := &messagesReader{r: viewReader{s: unsafe.String(&data[0], len(data))}}
	r := &mr.r
	if r.uint() != viewFormat || r.str() != viewer.ID || Hash(r.str()) != head {
		return nil, sm, errViewData
	}
	sm.slots = int(r.uint())
	sm.tokens = int(r.int())
	sm.repair = r.bool()
	if k := r.count(); k > 0 {
		sm.tools = make([]ToolDef, k)
		for j := range sm.tools {
			sm.tools[j] = ToolDef{Name: r.str(), Description: r.str()}
			if p := r.str(); p != "" {
				sm.tools[j].Parameters = []byte(p)
			}
		}
	}
	mr.authors = make([][2]string, r.count())
	for i := range mr.authors {
		mr.authors[i] = [2]string{r.str(), r.str()}
	}
	mr.left = r.count()
	if r.err != nil {
		return nil, sm, r.err
	}
	return mr, sm, nil
}

// next reads the next message into m (every field), false at the end or
// at damage (err).
func (mr *messagesReader) next(m *Message) bool {
	if mr.left == 0 || mr.r.err != nil {
		return false
	}
	mr.left--
	r := &mr.r
	m.Role, m.Content, m.Name, m.ToolCallID = r.enum(storedRoles), r.str(), r.str(), r.str()
	m.ToolCalls = r.toolCalls()
	m.Type, m.Priority = Type(r.enum(storedTypes)), Priority(r.enum(storedPriorities))
	m.Tokens = int(r.int())
	m.Commit = r.hashRef(mr.arena)
	if a := r.uint(); a < uint64(len(mr.authors)) {
		m.TractID, m.Tract = mr.authors[a][0], mr.authors[a][1]
	} else {
		r.fail()
	}
	mr.slot += int(r.int())
	m.Slot = mr.slot
	m.Summarizes = nil
	if k := r.count(); k > 0 {
		m.Summarizes = make([]Hash, k)
		for j := range m.Summarizes {
			m.Summarizes[j] = r.hashRef(mr.arena)
		}
	}
	return r.err == nil
}

// err is the damage found, or the data's end not where the messages end.
func (mr *messagesReader) err() error {
	if mr.r.err != nil || mr.left != 0 || mr.r.s != "" {
		return errViewData
	}
	return nil
}

// decodeMessages reads what encodeMessages wrote for viewer at head, with
// room for extra messages after them; strings share data's memory.
func decodeMessages(data []byte, viewer Tract, head Hash, extra int) (storedMessages, error) {
	mr, sm, err := openMessages(data, viewer, head)
	if err != nil {
		return sm, err
	}
	n := mr.left
	mr.arena = newHexArena(n)
	sm.messages = make([]Message, n, n+extra)
	for i := range sm.messages {
		if !mr.next(&sm.messages[i]) {
			break
		}
	}
	return sm, mr.err()
}

// The strings the messages layout writes as numbers. Append only: a
// string's number is its place.
var (
	storedRoles      = []string{RoleUser, RoleAssistant, RoleSystem, RoleTool}
	storedTypes      = []string{string(TypeMessage), string(TypeInstruction), string(TypeToolCall), string(TypeToolResult), string(TypeSummary)}
	storedPriorities = []string{string(Normal), string(Pinned), string(Important), string(Skip)}
)

// counterName is the name of an encoding ("" is the default) without
// loading its tokenizer.
func (r *Repo) counterName(encoding string) (string, error) {
	c, err := r.counter(encoding)
	if err != nil {
		return "", err
	}
	return c.Encoding(), nil
}

func sortAnnKeys(keys []annKey) {
	slices.SortFunc(keys, func(a, b annKey) int {
		if c := strings.Compare(a.viewer, b.viewer); c != 0 {
			return c
		}
		return strings.Compare(string(a.commit), string(b.commit))
	})
}
