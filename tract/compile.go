package tract

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/agentlineage/lineage/internal/tokens"
)

// CompileOptions select what to compile.
type CompileOptions struct {
	// At compiles as of this ref instead of HEAD (time travel).
	At string
	// Budget, when positive, is the most tokens the result may use.
	Budget int
	// Encoding names the token encoding; "" means o200k_base.
	Encoding string
	// Uncounted is for output that prints no token figure: a compile
	// that would load the tokenizer only to count contents the store has
	// no count for yet (commits made by a process that never loaded it)
	// may leave them uncounted instead — their messages' Tokens and the
	// result's Tokens are then -1. Loading the vocabulary costs more than
	// the rest of a compile of 10k messages. A budget needs every count:
	// with Budget set, Uncounted is ignored.
	Uncounted bool
	// Scratch, when set, is memory for the result's Messages when a
	// budget makes them a list of their own (the messages it keeps
	// gathered): the compile builds them in *Scratch, growing it, instead
	// of allocating them, and the result's Messages are then valid only
	// until the next compile given the same Scratch. What a caller that
	// copies the messages at once wants (compose.Scratch).
	Scratch *[]Message
	// Prune, when set and active, leaves out what the policy selects
	// before the budget is applied (the store is untouched); the result
	// lists them in Pruned.
	Prune *PrunePolicy
}

// Message is one compiled message with where it came from.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	Type       Type       `json:"type"`
	Priority   Priority   `json:"priority"`
	Tokens     int        `json:"tokens"`
	Commit     Hash       `json:"commit"`
	// Tract is the author tract's name.
	Tract string `json:"tract"`
	// TractID is the author tract's id.
	TractID string `json:"-"`
	// Summarizes lists, for a summary, the commits whose messages it
	// stands in for, oldest first.
	Summarizes []Hash `json:"-"`
	// Slot is where the message renders in the linearization (a summary
	// renders at the newest commit of its range).
	Slot int `json:"-"`
}

// Dropped is a message a budget left out.
type Dropped struct {
	Commit   Hash     `json:"commit"`
	Tract    string   `json:"tract"`
	Type     Type     `json:"type"`
	Priority Priority `json:"priority"`
	Tokens   int      `json:"tokens"`
}

// Result is a compiled context. Its slices are shared with the compile
// cache: read them, do not modify them.
type Result struct {
	Tract    string    `json:"tract"`
	Head     Hash      `json:"head"`
	Encoding string    `json:"encoding"`
	Tokens   int       `json:"tokens"`
	Budget   *int      `json:"budget"`
	Messages []Message `json:"messages"`
	Dropped  []Dropped `json:"dropped"`
	// Tools are the definitions of the latest tools commit compiled (not
	// counted in Tokens, never dropped by a budget).
	Tools []ToolDef `json:"tools,omitempty"`
	// DroppedTokens are the tokens of the Dropped messages.
	DroppedTokens int `json:"-"`
	// Pruned are the messages CompileOptions.Prune left out, each with
	// its rule, in compile order.
	Pruned []Pruned `json:"pruned,omitempty"`
	// TractID is the compiled tract's id and SpawnParent the id of the
	// tract it was spawned from ("" for a root tract), as the compile
	// read the tract: a root tract's spawn path is [Tract] without a
	// look-up ([Repo.SpawnPath]).
	TractID, SpawnParent string `json:"-"`
}

// Token accounting, as OpenAI documents it for chat models.
const (
	tokensPerMessage = 3
	tokensPerName    = 1
	tokensPrimer     = 3
)

// PrimerTokens is what every compile's Tokens includes once beside its
// messages: the tokens that prime the reply.
const PrimerTokens = tokensPrimer

// MessageTokens is what a message whose content counts contentTokens
// costs in a compile's Tokens, one more with a name: the accounting every
// compile uses, for a caller adding messages of its own beside one.
func MessageTokens(contentTokens int, named bool) int {
	n := tokensPerMessage + contentTokens
	if named {
		n += tokensPerName
	}
	return n
}

// Compile turns a tract's history into the messages an LLM receives. A
// result is cached per tract, encoding and head, and extended incrementally
// when the head moves forward; it always equals a cold compile.
func (r *Repo) Compile(ctx context.Context, tractName string, o CompileOptions) (Result, error) {
	return r.compile(ctx, tractName, o, true)
}

// CompileCold compiles without the cache: what a process that compiles
// once wants (the view a cache keeps is the whole history), and what tests
// compare Compile with.
func (r *Repo) CompileCold(ctx context.Context, tractName string, o CompileOptions) (Result, error) {
	return r.compile(ctx, tractName, o, false)
}

// compileTarget checks o and finds what it compiles: the tract, the
// encoding's counter and the head ("" for a tract without commits).
func (r *Repo) compileTarget(ctx context.Context, tractName string, o CompileOptions) (Tract, tokens.Counter, Hash, error) {
	if err := o.Validate(); err != nil {
		return Tract{}, nil, "", err
	}
	counter, err := r.counter(o.Encoding)
	if err != nil {
		return Tract{}, nil, "", &ValidationError{Field: "encoding", Value: o.Encoding, Reason: err.Error()}
	}
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return Tract{}, nil, "", err
	}
	ref := o.At
	if ref == "" {
		ref = HeadRef
	}
	head, err := r.Resolve(ctx, t, ref)
	if errors.Is(err, ErrNoCommits) && o.At == "" {
		head, err = "", nil
	} else if err != nil {
		return Tract{}, nil, "", err
	}
	return t, counter, head, nil
}

func (r *Repo) compile(ctx context.Context, tractName string, o CompileOptions, cached bool) (Result, error) {
	t, counter, head, err := r.compileTarget(ctx, tractName, o)
	if err != nil {
		return Result{}, err
	}
	if o.Prune != nil && o.Prune.Active() {
		return r.compilePruned(ctx, t, counter, head, o, cached)
	}
	return r.compileAt(ctx, nil, t, counter, head, o, cached)
}

// compileAt compiles t at head; lk is what the compile learned of the
// stored checkpoint so far (nil: nothing).
func (r *Repo) compileAt(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash, o CompileOptions, cached bool) (Result, error) {
	var (
		res Result
		err error
	)
	if lk == nil {
		lk = &lookup{}
	}
	// Only a compile of HEAD stores a checkpoint: one of --at would
	// replace the one at the head.
	served := false
	if cached && !r.noCheckpoints && head != "" {
		// Time travel the stored checkpoint serves (its head, a few
		// appends after it or before it), and the first compile of a
		// cache, build no view to cache. A first compile whose stored
		// messages prove damaged is the cache's, which reads the view's
		// data part instead.
		if o.At != "" {
			res, served, err = r.compileStored(ctx, lk, t, counter, head, o.Budget, false)
		} else if r.cache.firstCompile(t, counter) {
			if res, served, err = r.compileStored(ctx, lk, t, counter, head, o.Budget, false); errors.Is(err, ErrDamaged) {
				served, err = false, nil
			}
		}
	}
	switch {
	case served || err != nil:
	case cached:
		res, err = r.cache.compile(ctx, r, t, counter, head, o.At == "", o.Budget, o.Scratch)
	default:
		ok := false
		if !r.noCheckpoints && head != "" && !lk.planned {
			res, ok, err = r.compileStored(ctx, lk, t, counter, head, o.Budget, o.Uncounted && o.Budget == 0)
		}
		if !ok && err == nil {
			var v *view
			if v, err = r.viewAt(ctx, lk, t, counter, head); err == nil {
				r.keep(ctx, v, o.At == "")
				res, err = v.result(o.Budget, false, o.Scratch)
			}
		}
	}
	if err != nil {
		return Result{}, err
	}
	res.Tract, res.Head, res.Encoding = t.Name, head, counter.Encoding()
	res.TractID = t.ID
	if t.Spawn != nil {
		res.SpawnParent = t.Spawn.Parent
	}
	return res, nil
}

// view is the compile state of one tract at one head: the linearization
// with every commit's content and tokens, the annotations seen so far, and
// the rendered messages derived from them.
type view struct {
	viewer  Tract
	counter tokens.Counter
	head    Hash
	lin     linearizer
	entries []entry // parallel to lin.order
	annSeq  int64
	ann     map[annKey]Priority
	tracts  map[string]Tract
	// inh is the viewer's chain of reference spawns (inherit.go).
	inh *inheritance
	// leftOut counts the commits selective merges left out and no later
	// merge took, as of the last full render (leftOutKnown: one was made
	// from this view, not read from a checkpoint): a merge appended then
	// may take them, which only a full render places.
	leftOut      int
	leftOutKnown bool

	rendered []Message
	tokens   int
	// tools are the latest tools commit's definitions.
	tools []ToolDef
	// saved is how many commits of lin.order the stored checkpoint
	// holds (0: none stored from this view).
	saved int
	// counted are token counts made for blobs the store has no count
	// for, not yet kept.
	counted map[Hash]int
	// uncounted leaves contents the store has no count for uncounted
	// (tokens -1) instead of counting them (CompileOptions.Uncounted).
	uncounted bool
	// gen counts full renders: rendered was only appended to while it
	// stays the same.
	gen int
	// budgets keep the budget work of the last few budgets compiled
	// (budget.go), most recent first.
	budgets []*budgetState
}

type entry struct {
	content Content
	tokens  int // tokens of the content's rendered text
}

type annKey struct {
	viewer string
	commit Hash
}

// snapshot is v as it stands, for a checkpoint encoded while v goes on
// being extended: the slices v only appends to (the linearization, the
// entries, the rendered messages; a full render makes new ones) are
// shared up to their current length, the maps copied, the index left to
// be made from the shared order.
func (v *view) snapshot() *view {
	n, m := len(v.lin.order), len(v.rendered)
	return &view{viewer: v.viewer, counter: v.counter, head: v.head, annSeq: v.annSeq, tokens: v.tokens, tools: v.tools,
		lin: linearizer{order: v.lin.order[:n:n]}, entries: v.entries[:n:n], rendered: v.rendered[:m:m],
		ann: maps.Clone(v.ann), tracts: maps.Clone(v.tracts), saved: v.saved, inh: v.inh,
		leftOut: v.leftOut, leftOutKnown: v.leftOutKnown}
}

func newView(t Tract, counter tokens.Counter) *view {
	return &view{viewer: t, counter: counter, lin: linearizer{},
		ann: map[annKey]Priority{}, tracts: map[string]Tract{t.ID: t}}
}

// viewAt builds the view of t at head: the stored checkpoint extended to
// head when it can be, else a cold view. lk, when not nil, is what the
// compile learned of the stored checkpoint (none to load: absent).
func (r *Repo) viewAt(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash) (*view, error) {
	return r.viewAtWith(ctx, lk, t, counter, head, false)
}

// viewAtWith is viewAt; uncounted leaves contents the store has no token
// count for uncounted (see CompileOptions.Uncounted).
func (r *Repo) viewAtWith(ctx context.Context, lk *lookup, t Tract, counter tokens.Counter, head Hash, uncounted bool) (*view, error) {
	if !r.noCheckpoints && head != "" && (lk == nil || !(lk.absent || lk.behind)) {
		v, err := r.loadCheckpoint(ctx, t, counter)
		if err != nil {
			return nil, err
		}
		if v != nil {
			v.uncounted = uncounted
			ok, err := r.extend(ctx, v, head)
			if err != nil {
				return nil, err
			}
			if ok {
				return v, nil
			}
		}
	}
	return r.coldViewWith(ctx, t, counter, head, uncounted)
}

// coldView builds a view from scratch from one History read (the backend
// fetches commits and blobs in bulk) and one query for annotations.
func (r *Repo) coldView(ctx context.Context, t Tract, counter tokens.Counter, head Hash) (*view, error) {
	return r.coldViewWith(ctx, t, counter, head, false)
}

// coldViewWith is coldView; uncounted leaves contents the store has no
// token count for uncounted (see CompileOptions.Uncounted).
func (r *Repo) coldViewWith(ctx context.Context, t Tract, counter tokens.Counter, head Hash, uncounted bool) (*view, error) {
	v := newView(t, counter)
	v.uncounted = uncounted
	v.head = head
	if head != "" {
		hist, err := r.store.History(ctx, []Hash{head}, counter.Encoding())
		if err != nil {
			return nil, err
		}
		v.lin.emitted = make(map[Hash]int, len(hist))
		v.lin.order = make([]*Commit, 0, len(hist))
		src := newHistorySource(hist)
		v.lin.get = src.get
		if err := v.lin.add(head); err != nil {
			return nil, err
		}
		blobs := make([]*Blob, len(v.lin.order))
		for i, c := range v.lin.order {
			if c.Content != "" {
				blobs[i] = src.blob(c)
			}
		}
		// decodeEntries drops each blob's bytes once decoded: the view
		// keeps the decoded contents and points into hist.
		if err := r.decodeEntries(ctx, v, 0, blobs, true); err != nil {
			return nil, err
		}
	}
	if _, err := r.loadAnnotations(ctx, v, 0); err != nil {
		return nil, err
	}
	if err := r.loadTracts(ctx, v, 0); err != nil {
		return nil, err
	}
	v.render()
	return v, nil
}

// historySource serves the commits of one History read to a linearizer.
// Backends tend to return a history in storage order, a commit's first
// parent just before it and the head last, so the entries around the last
// one found are tried before a map of the whole history is built.
type historySource struct {
	hist []HistoryCommit
	last int
	m    map[Hash]int
}

func newHistorySource(hist []HistoryCommit) *historySource {
	return &historySource{hist: hist, last: len(hist) - 1}
}

func (s *historySource) index(h Hash) (int, bool) {
	for _, i := range [3]int{s.last, s.last - 1, s.last + 1} {
		if i >= 0 && i < len(s.hist) && s.hist[i].Commit.Hash == h {
			s.last = i
			return i, true
		}
	}
	if s.m == nil {
		s.m = make(map[Hash]int, len(s.hist))
		for i := range s.hist {
			s.m[s.hist[i].Commit.Hash] = i
		}
	}
	i, ok := s.m[h]
	if ok {
		s.last = i
	}
	return i, ok
}

func (s *historySource) get(h Hash) (*Commit, error) {
	i, ok := s.index(h)
	if !ok {
		return nil, fmt.Errorf("commit %s: %w", h.Short(), ErrNotFound)
	}
	return &s.hist[i].Commit, nil
}

// blob is the blob read with c, a commit of the history.
func (s *historySource) blob(c *Commit) *Blob {
	i, _ := s.index(c.Hash)
	return &s.hist[i].Blob
}

// loadEntries reads and decodes the contents of v.lin.order[from:], counting
// tokens the store does not have yet (and recording them, best effort).
func (r *Repo) loadEntries(ctx context.Context, v *view, from int) error {
	order := v.lin.order[from:]
	hashes := make([]Hash, 0, len(order))
	for _, c := range order {
		if c.Content != "" {
			hashes = append(hashes, c.Content)
		}
	}
	blobs, err := r.store.Blobs(ctx, hashes, v.counter.Encoding())
	if err != nil {
		return err
	}
	byHash := make(map[Hash]*Blob, len(blobs))
	for i := range blobs {
		byHash[blobs[i].Hash] = &blobs[i]
	}
	list := make([]*Blob, len(order))
	for i, c := range order {
		list[i] = byHash[c.Content]
	}
	return r.decodeEntries(ctx, v, from, list, false)
}

// decodeEntries decodes the contents of v.lin.order[from:], whose blobs
// (nil for merges) are given in the same order. Owned blobs serve one
// commit each: their bytes are dropped once decoded.
func (r *Repo) decodeEntries(ctx context.Context, v *view, from int, blobs []*Blob, owned bool) error {
	order := v.lin.order[from:]
	var err error
	counted := map[Hash]int{}
	var scratch []byte
	v.entries = slices.Grow(v.entries, len(order))
	for i, c := range order {
		// Trust no row: a commit whose fields (parents, operation, content,
		// edit target, author, time) do not hash to its hash is refused,
		// like content that does not match its blob hash. A checkpoint
		// keeps what was checked here.
		var ok bool
		if ok, scratch = commitHashes(c, scratch); !ok {
			return &CommitIntegrityError{Commit: c.Hash, Got: c.ComputeHash()}
		}
		var e entry
		if c.Content != "" {
			b := blobs[i]
			if b == nil || b.Hash == "" {
				return fmt.Errorf("blob %s of commit %s: %w", c.Content.Short(), c.Hash.Short(), ErrNotFound)
			}
			// Never render bytes that do not match their hash.
			if !hashes(c.Content, b.Data) {
				return &IntegrityError{Commit: c.Hash, Blob: c.Content, Got: sha256Hex(b.Data)}
			}
			if e.content, err = DecodeContent(b.Data); err != nil {
				return fmt.Errorf("commit %s: %w", c.Hash.Short(), err)
			}
			if owned {
				// The decoded content is what stays: let the bytes go
				// now, not after the whole history is decoded.
				b.Data = nil
			}
			e.tokens = b.Tokens
			if e.tokens < 0 && !v.uncounted {
				e.tokens = v.counter.Count(e.content.RenderedText())
				b.Tokens = e.tokens
				counted[c.Content] = e.tokens
			}
		}
		v.entries = append(v.entries, e)
	}
	if len(counted) > 0 {
		if v.counted == nil {
			v.counted = counted
		} else {
			maps.Copy(v.counted, counted)
		}
	}
	return nil
}

// keep stores what building v found that the store lacks, best effort:
// token counts it made and, with save, v as the tract's compile checkpoint
// when that is due. Both are caches: a busy or read-only store only means
// counting (or reading the history) again next time. One transaction, and
// for a read-only store one upgrade to a writing handle, does both.
func (r *Repo) keep(ctx context.Context, v *view, save bool) {
	counted := v.counted
	var cv *CompiledView
	if save {
		cv = r.checkpoint(v)
	}
	if len(counted) == 0 && cv == nil {
		return
	}
	enc := v.counter.Encoding()
	ok := r.keepCache(ctx, func(tx Tx) error {
		if len(counted) > 0 {
			if err := tx.SetTokens(ctx, enc, counted); err != nil {
				return err
			}
		}
		if cv != nil {
			return tx.PutCompiledView(ctx, *cv)
		}
		return nil
	})
	// Counts that could not be kept are not tried again by this view.
	v.counted = nil
	if ok && cv != nil {
		v.saved = len(v.lin.order)
	}
}

// keepCache writes what a cache keeps in the store (token counts, compile
// checkpoints), through the store's upgrade (see [Upgrader]) when it is
// read-only, and reports whether it was written. Without an upgrade every
// read-only compile counts every uncounted message again.
func (r *Repo) keepCache(ctx context.Context, set func(tx Tx) error) bool {
	err := r.store.Update(ctx, set)
	u, ok := r.store.(Upgrader)
	if !errors.Is(err, ErrReadOnly) || !ok {
		return err == nil
	}
	w, err := u.Upgrade(ctx)
	if err != nil {
		return false
	}
	defer w.Close()
	return w.Update(ctx, set) == nil
}

// loadAnnotations applies annotations newer than v.annSeq and reports
// whether any concerns one of the first limit commits of v.
func (r *Repo) loadAnnotations(ctx context.Context, v *view, limit int) (bool, error) {
	anns, err := r.store.Annotations(ctx, AnnotationQuery{AfterSeq: v.annSeq})
	if err != nil {
		return false, err
	}
	touched := false
	for _, a := range anns {
		v.ann[annKey{a.Viewer, a.Commit}] = a.Priority
		if a.Seq > v.annSeq {
			v.annSeq = a.Seq
		}
		if i, ok := v.lin.index(a.Commit); ok && i < limit {
			touched = true
		}
	}
	return touched, nil
}
