package tract

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/agentlineage/lineage/internal/tokens"
)

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
	index := w.authors(v)
	w.annotations(v)
	w.uint(uint64(len(v.lin.order)))
	for i, c := range v.lin.order {
		w.commit(v, i, c, index[c.Tract])
	}
	return w.b
}

// authors writes the view's author tracts, in a fixed order of first use
// (the viewer, the commits' authors, their spawn ancestors), and returns
// each one's place.
func (w *viewWriter) authors(v *view) map[string]int {
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
		if t, ok := v.tracts[id]; ok {
			w.tract(t)
		}
	}
	return index
}

func (w *viewWriter) tract(t Tract) {
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

// annotations writes the view's annotations: only the newest per
// (viewer, commit) counts, which is all the view keeps; sorted so equal
// views encode equally.
func (w *viewWriter) annotations(v *view) {
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
}

// commit writes the i-th commit of the linearization with its entry (its
// author's place is author).
func (w *viewWriter) commit(v *view, i int, c *Commit, author int) {
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
	w.uint(uint64(author))
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
	ids := r.authors(v)
	for range r.count() {
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
		parents = r.commit(c, commits, i, arena, ids, parents)
		r.entry(&v.entries[i])
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

// authors reads the author tracts into v and returns their ids in order.
func (r *viewReader) authors(v *view) []string {
	nt := r.count()
	ids := make([]string, 0, nt)
	for range nt {
		t := Tract{ID: r.str(), Name: r.str(), Created: r.time(), Deleted: r.time()}
		if r.bool() {
			t.Spawn = &SpawnPointer{Parent: r.str(), Commit: Hash(r.str()), Purpose: r.str(), Mode: SpawnMode(r.str()), Time: r.time()}
		}
		ids = append(ids, t.ID)
		if t.ID != v.viewer.ID {
			v.tracts[t.ID] = t
		}
	}
	return ids
}

// commit reads commit i of commits, its parents taken from the slab
// parents (grown as needed); it returns what is left of the slab.
func (r *viewReader) commit(c *Commit, commits []Commit, i int, arena *hexArena, ids []string, parents []Hash) []Hash {
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
	return parents
}

// entry reads a commit's decoded content and its tokens.
func (r *viewReader) entry(e *entry) {
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
}

func sortAnnKeys(keys []annKey) {
	slices.SortFunc(keys, func(a, b annKey) int {
		if c := strings.Compare(a.viewer, b.viewer); c != 0 {
			return c
		}
		return strings.Compare(string(a.commit), string(b.commit))
	})
}
