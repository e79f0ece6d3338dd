package tract

import (
	"context"
	"errors"
	"sync"

	"github.com/agentlineage/lineage/internal/tokens"
)

// The compile cache keeps, per viewer tract and encoding, the views of the
// last few heads compiled. A view at head H extends to a new head N when H
// is on N's first-parent history: linearizing N then only appends (see
// linearize.go), the new commits are read one by one, annotations newer than
// the view's are read in one query, and messages are rendered for the new
// commits only unless an edit, a named instruction or an annotation of an
// older commit asks for a full render. Commits and annotations are
// immutable and append-only, so nothing else can make a view stale.

const (
	viewsPerKey = 4
	// maxWalk bounds the commits read one by one before a cold compile is
	// cheaper.
	maxWalk = 512
)

type cacheKey struct {
	tract    string
	encoding string
	// uncounted views leave contents the store has no token count for
	// uncounted (see getUncounted): they are kept apart from counted ones.
	uncounted bool
}

type compileCache struct {
	mu    sync.Mutex
	views map[cacheKey][]*view
	// background: due checkpoints are written by a goroutine from a
	// snapshot of the view (see keep); saving is set while one is, and
	// pending counts them for Wait.
	background bool
	saving     bool
	pending    sync.WaitGroup
	// served are the keys whose first compile the stored checkpoint's
	// messages served (firstCompile).
	served map[cacheKey]bool
}

func newCompileCache() *compileCache {
	return &compileCache{views: map[cacheKey][]*view{}, served: map[cacheKey]bool{}}
}

// firstCompile reports whether this is the cache's first compile of t in
// counter's encoding: one the stored checkpoint's messages can serve
// without a view (what a process that compiles once wants: a view of a
// long history costs a few KiB a commit). From the second compile on, the
// cache builds and keeps views, which make the next ones cheap.
func (cc *compileCache) firstCompile(t Tract, counter tokens.Counter) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	key := cacheKey{t.ID, counter.Encoding(), false}
	if cc.served[key] || len(cc.views[key]) > 0 {
		return false
	}
	cc.served[key] = true
	return true
}

// get returns a view of t at head, extending a cached one when it can.
func (cc *compileCache) get(ctx context.Context, r *Repo, t Tract, counter tokens.Counter, head Hash) (*view, error) {
	return cc.lookup(ctx, r, t, counter, head, false)
}

// getUncounted is get for a caller that reads no token figure (a compress
// by an importer): contents the store has no count for stay uncounted
// (tokens -1), so the tokenizer is never loaded for them. Such a view is
// never stored as a checkpoint.
func (cc *compileCache) getUncounted(ctx context.Context, r *Repo, t Tract, counter tokens.Counter, head Hash) (*view, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.lookupKey(ctx, r, t, counter, head, false, cacheKey{t.ID, counter.Encoding(), true})
}

// lookup is get; with save, it also stores the view as the tract's compile
// checkpoint when that is due (under the lock: nothing extends v meanwhile).
func (cc *compileCache) lookup(ctx context.Context, r *Repo, t Tract, counter tokens.Counter, head Hash, save bool) (*view, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.lookupLocked(ctx, r, t, counter, head, save)
}

// compile is lookup and the view's result under budget, both under the
// lock: the view keeps its budget work and extends it in place.
func (cc *compileCache) compile(ctx context.Context, r *Repo, t Tract, counter tokens.Counter, head Hash, save bool, budget int, scratch *[]Message) (Result, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	v, err := cc.lookupLocked(ctx, r, t, counter, head, save)
	if err != nil {
		return Result{}, err
	}
	return v.result(budget, true, scratch)
}

func (cc *compileCache) lookupLocked(ctx context.Context, r *Repo, t Tract, counter tokens.Counter, head Hash, save bool) (*view, error) {
	return cc.lookupKey(ctx, r, t, counter, head, save, cacheKey{t.ID, counter.Encoding(), false})
}

func (cc *compileCache) lookupKey(ctx context.Context, r *Repo, t Tract, counter tokens.Counter, head Hash, save bool, key cacheKey) (*view, error) {
	views := cc.views[key]
	for i, v := range views {
		ok, err := r.extend(ctx, v, head)
		if err != nil {
			// A half-extended view is unusable.
			cc.views[key] = append(views[:i:i], views[i+1:]...)
			return nil, err
		}
		if ok {
			cc.views[key] = append([]*view{v}, append(views[:i:i], views[i+1:]...)...)
			cc.keep(ctx, r, v, save)
			return v, nil
		}
	}
	v, err := r.viewAtWith(ctx, nil, t, counter, head, key.uncounted)
	if err != nil {
		return nil, err
	}
	if len(views) >= viewsPerKey {
		views = views[:viewsPerKey-1]
	}
	cc.views[key] = append([]*view{v}, views...)
	cc.keep(ctx, r, v, save)
	return v, nil
}

// keep is r.keep for a view of the cache (the caller holds cc.mu). In
// the background mode, a due checkpoint — the whole view encoded, hashed
// and written: work in proportion to the history — is written by a
// goroutine from a snapshot of v, so the compile that made it due answers
// without waiting; one at a time (a checkpoint due meanwhile waits for the
// next compile). What v found that the store lacks (token counts) is kept
// at once either way.
func (cc *compileCache) keep(ctx context.Context, r *Repo, v *view, save bool) {
	if !cc.background || !save {
		r.keep(ctx, v, save)
		return
	}
	r.keep(ctx, v, false)
	if cc.saving || !r.checkpointDue(v) {
		return
	}
	snap := v.snapshot()
	cc.saving = true
	cc.pending.Add(1)
	go func() {
		defer cc.pending.Done()
		r.keep(context.WithoutCancel(ctx), snap, true)
		cc.mu.Lock()
		defer cc.mu.Unlock()
		cc.saving = false
		if snap.saved > v.saved {
			v.saved = snap.saved
		}
	}()
}

// BackgroundCheckpoints makes the compiles of r's cache ([Repo.Compile])
// write the compile checkpoints they make due in the background, so a
// long-running process (the MCP server) answers a compile without waiting
// for one; [Repo.Wait] waits for them. Call it before compiling.
func (r *Repo) BackgroundCheckpoints() {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	r.cache.background = true
}

// Wait waits for the checkpoints being written in the background (see
// [Repo.BackgroundCheckpoints]); call it before closing the store.
func (r *Repo) Wait() { r.cache.pending.Wait() }

// errNotExtendable stops a walk that cannot reuse the view.
var errNotExtendable = errors.New("view not extendable")

// extend moves v to head when v's head is on head's first-parent history
// within maxWalk commits; it reports false (v unchanged) otherwise.
func (r *Repo) extend(ctx context.Context, v *view, head Hash) (bool, error) {
	fetched := map[Hash]*Commit{}
	if head != v.head {
		// A commit on head's first-parent path at or above the view's
		// head's depth cannot lead down to it: that is the test when the
		// view is not indexed (one read instead of indexing every commit),
		// else whether the commit is already in the view.
		baseDepth := int64(-1)
		if v.head != "" && !v.lin.indexed() {
			if bc, err := r.store.Commit(ctx, v.head); err == nil && bc.Pos.Known() {
				baseDepth = bc.Pos.Depth
			}
		}
		h, steps := head, 0
		for h != v.head {
			if h == "" || steps == maxWalk {
				return false, nil
			}
			if baseDepth < 0 {
				if _, ok := v.lin.index(h); ok {
					return false, nil
				}
			}
			c, err := r.store.Commit(ctx, h)
			if err != nil {
				if errors.Is(err, ErrNotFound) {
					return false, nil
				}
				return false, err
			}
			if baseDepth >= 0 && (!c.Pos.Known() || c.Pos.Depth <= baseDepth) {
				return false, nil
			}
			fetched[h] = &c
			steps++
			h = ""
			if len(c.Parents) > 0 {
				h = c.Parents[0]
			}
		}
	}
	from := len(v.lin.order)
	v.lin.get = func(h Hash) (*Commit, error) {
		if c, ok := fetched[h]; ok {
			return c, nil
		}
		c, err := r.store.Commit(ctx, h)
		return &c, err
	}
	if head != "" {
		v.lin.fresh = make(map[Hash]bool, len(fetched))
		for h := range fetched {
			v.lin.fresh[h] = true
		}
		err := v.lin.add(head)
		v.lin.fresh = nil
		if err != nil {
			return false, err
		}
	}
	v.head = head
	if err := r.loadEntries(ctx, v, from); err != nil {
		return false, err
	}
	if err := r.loadTracts(ctx, v, from); err != nil {
		return false, err
	}
	touched, err := r.loadAnnotations(ctx, v, from)
	if err != nil {
		return false, err
	}
	if touched || !v.extendRendered(from) {
		v.render()
	}
	return true, nil
}
