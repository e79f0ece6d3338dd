package tract

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// CommitRequest is one piece of content to append.
type CommitRequest struct {
	Content Content
	Message string
	// Meta is a JSON object kept with the commit (see ParseMeta); nil for none.
	Meta []byte
	// Priority, when set, is recorded as the author tract's annotation.
	Priority Priority
	Reason   string
}

// Commit appends one commit to the tract's current branch (or detached
// HEAD) and returns it. When another writer moves the branch first, the
// append is retried on the new head.
func (r *Repo) Commit(ctx context.Context, tractName string, req CommitRequest) (Commit, error) {
	var out Commit
	err := r.appendSeq(ctx, tractName, oneRequest(req), func() {}, func(cs []Commit) { out = cs[0] })
	return out, err
}

// Import appends every request as one commit each, in one transaction.
func (r *Repo) Import(ctx context.Context, tractName string, reqs []CommitRequest) ([]Commit, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	out := make([]Commit, 0, len(reqs))
	err := r.appendSeq(ctx, tractName, allRequests(reqs), func() { out = out[:0] }, func(cs []Commit) { out = append(out, cs...) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ImportSummary is what ImportSeq added.
type ImportSummary struct {
	Count int  `json:"count"`
	Head  Hash `json:"head"` // the last commit; empty when nothing was imported
}

// ImportSeq appends every request reqs yields as one commit each, in one
// transaction: all of them or, when one is invalid or reqs yields an error
// (which ImportSeq returns as it is), none. It holds only importChunk
// requests, their blobs and commits in memory at a time, so reqs can
// stream a file of any length. reqs may be ranged over more than once
// (another writer moving the branch makes the import start again).
func (r *Repo) ImportSeq(ctx context.Context, tractName string, reqs iter.Seq2[CommitRequest, error]) (ImportSummary, error) {
	var sum ImportSummary
	err := r.appendSeq(ctx, tractName, reqs, func() { sum = ImportSummary{} }, func(cs []Commit) {
		sum.Count += len(cs)
		sum.Head = cs[len(cs)-1].Hash
	})
	if err != nil {
		return ImportSummary{}, err
	}
	return sum, nil
}

func oneRequest(req CommitRequest) iter.Seq2[CommitRequest, error] {
	return func(yield func(CommitRequest, error) bool) { yield(req, nil) }
}

func allRequests(reqs []CommitRequest) iter.Seq2[CommitRequest, error] {
	return func(yield func(CommitRequest, error) bool) {
		for _, req := range reqs {
			if !yield(req, nil) {
				return
			}
		}
	}
}

// importChunk is how many requests an append prepares and writes at a
// time: an import of any length holds one chunk's requests, blobs and
// rows in memory, not the whole history's.
const importChunk = 2000

type preparedAppend struct {
	req  CommitRequest
	blob Blob
	meta jsontext.Value
}

// prepareAppend checks req and builds its blob.
func prepareAppend(req CommitRequest) (preparedAppend, error) {
	c, err := req.Content.Normalize()
	if err != nil {
		return preparedAppend{}, err
	}
	if len(req.Message) > MaxMessageBytes {
		return preparedAppend{}, &ValidationError{Field: "commit message", Reason: fmt.Sprintf("%d bytes, the limit is %d", len(req.Message), MaxMessageBytes)}
	}
	if req.Priority != "" {
		if _, err := ParsePriority(string(req.Priority)); err != nil {
			return preparedAppend{}, err
		}
	}
	var meta jsontext.Value
	if req.Meta != nil {
		if meta, err = ParseMeta(req.Meta); err != nil {
			return preparedAppend{}, err
		}
	}
	req.Content = c
	b, err := NewBlob(c)
	if err != nil {
		return preparedAppend{}, err
	}
	return preparedAppend{req: req, blob: b, meta: meta}, nil
}

// appendSeq appends reqs in one transaction, a chunk at a time, each
// chunk's commits on the previous chunk's last; emit receives each chunk's
// commits as they are written (their slice is reused once emit returns:
// emit copies what it keeps), reset is called before every attempt. The
// first chunk (all of a short append) is checked and prepared before the
// transaction; an invalid request of several is named by its 1-based
// position.
func (r *Repo) appendSeq(ctx context.Context, tractName string, reqs iter.Seq2[CommitRequest, error], reset func(), emit func([]Commit)) error {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return err
	}
	var first []preparedAppend
	var badFirst error // the first request's error, when it is invalid
	more := false
	for req, err := range reqs {
		if badFirst != nil || len(first) == importChunk {
			more = true
			break
		}
		if err != nil {
			return err
		}
		p, err := prepareAppend(req)
		switch {
		case err != nil && len(first) > 0:
			return fmt.Errorf("message %d: %w", len(first)+1, err)
		case err != nil:
			// Several requests name the bad one: look for a second.
			badFirst = err
			continue
		}
		first = append(first, p)
	}
	if badFirst != nil && more {
		return fmt.Errorf("message 1: %w", badFirst)
	} else if badFirst != nil {
		return badFirst
	}
	if len(first) == 0 {
		return nil
	}
	if counter, count := r.eager(); count && !more && len(first) <= eagerCountMax {
		for i := range first {
			b := &first[i].blob
			b.Tokens, b.Encoding = counter.Count(first[i].req.Content.RenderedText()), counter.Encoding()
		}
	}
	return r.retry(ctx, func() error {
		reset()
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			h, err := readHead(ctx, tx, t.ID)
			if err != nil {
				return err
			}
			w := chunkWriter{tx: tx, tract: t.ID, parent: h.Commit, now: now, emit: emit}
			if err := w.store(ctx, w.chain(first, nil)); err != nil {
				return err
			}
			if more {
				if err := w.storeAll(ctx, reqs, len(first)); err != nil {
					return err
				}
			}
			return moveHead(ctx, tx, t.ID, h, w.parent, "commit", now)
		})
	})
}

// chunkWriter writes an append's chunks, each on the last commit written.
type chunkWriter struct {
	tx     Tx
	tract  string
	parent Hash
	now    time.Time
	emit   func([]Commit)
	// chained counts the commits chained before the next chunk.
	chained int
}

// chainedChunk is a chunk of prepared appends with its commits, or the
// error that ended the requests.
type chainedChunk struct {
	chunk   []preparedAppend
	commits []Commit
	err     error
}

// chain builds the commits of a chunk on the last one chained, in buf's
// array when it has room.
func (w *chunkWriter) chain(chunk []preparedAppend, buf []Commit) chainedChunk {
	if len(chunk) == 0 {
		return chainedChunk{}
	}
	out := chainAppends(w.tract, w.parent, chunk, w.now.Add(time.Duration(w.chained)), buf)
	w.chained += len(chunk)
	w.parent = out[len(out)-1].Hash
	return chainedChunk{chunk: chunk, commits: out}
}

// storeAll stores the requests of reqs after the first skip, a chunk at a
// time. The requests are checked, prepared and chained on another
// goroutine while the store writes the chunk before (a bulk import's
// second core): the two take turns with one chunk between them.
func (w *chunkWriter) storeAll(ctx context.Context, reqs iter.Seq2[CommitRequest, error], skip int) error {
	chunks := make(chan chainedChunk, 1)
	stop := make(chan struct{})
	// free holds the arrays of chunks stored, for the producer to reuse
	// (at most three chunks are in flight).
	free := make(chan chainedChunk, 3)
	next := func() chainedChunk {
		select {
		case c := <-free:
			return c
		default:
			return chainedChunk{chunk: make([]preparedAppend, 0, importChunk)}
		}
	}
	go func() {
		defer close(chunks)
		send := func(c chainedChunk) bool {
			select {
			case chunks <- c:
				return true
			case <-stop:
				return false
			}
		}
		buf := next()
		chunk := buf.chunk[:0]
		i := 0
		for req, err := range reqs {
			if err != nil {
				send(chainedChunk{err: err})
				return
			}
			if i++; i <= skip {
				continue
			}
			p, err := prepareAppend(req)
			if err != nil {
				send(chainedChunk{err: fmt.Errorf("message %d: %w", i, err)})
				return
			}
			if chunk = append(chunk, p); len(chunk) == importChunk {
				if !send(w.chain(chunk, buf.commits)) {
					return
				}
				buf = next()
				chunk = buf.chunk[:0]
			}
		}
		send(w.chain(chunk, buf.commits))
	}()
	defer func() {
		// Stop the producer and wait for it: it shares w and reqs.
		close(stop)
		for range chunks {
		}
	}()
	for c := range chunks {
		if c.err != nil {
			return c.err
		}
		if err := w.store(ctx, c); err != nil {
			return err
		}
		// Stored and emitted (emit copies what it keeps): the arrays
		// go back, emptied so they hold nothing alive.
		clear(c.chunk)
		clear(c.commits)
		select {
		case free <- chainedChunk{chunk: c.chunk[:0], commits: c.commits[:0]}:
		default:
		}
	}
	return nil
}

// store writes a chained chunk: its blobs, commits and annotations.
func (w *chunkWriter) store(ctx context.Context, c chainedChunk) error {
	chunk, out := c.chunk, c.commits
	if len(chunk) == 0 {
		return nil
	}
	blobs := make([]Blob, len(chunk))
	for i, p := range chunk {
		blobs[i] = p.blob
	}
	if err := w.tx.PutBlobs(ctx, blobs...); err != nil {
		return err
	}
	if err := putCommits(ctx, w.tx, out...); err != nil {
		return err
	}
	for i, p := range chunk {
		if p.req.Priority == "" {
			continue
		}
		a := Annotation{Viewer: w.tract, Commit: out[i].Hash, Priority: p.req.Priority, Reason: p.req.Reason, Time: w.now, Head: out[i].Hash}
		if err := w.tx.AddAnnotation(ctx, a); err != nil {
			return err
		}
	}
	w.emit(out)
	return nil
}

// chainAppends builds the commits of prepared appends, each on the
// previous; the first is stamped now, each next one a nanosecond later, so
// the commits of an import are in time order as they are in the file (find
// -n gives its first messages, and the store's time index grows at its
// end instead of taking each commit at a random place among the import's).
func chainAppends(tractID string, parent Hash, prepared []preparedAppend, now time.Time, buf []Commit) []Commit {
	out := buf[:0]
	if cap(out) < len(prepared) {
		out = make([]Commit, len(prepared))
	}
	out = out[:len(prepared)]
	var scratch []byte // one buffer for every commit's canonical form
	for i, p := range prepared {
		c := Commit{Content: p.blob.Hash, Operation: OpAppend, Tract: tractID, Time: now.Add(time.Duration(i)), Message: p.req.Message, Meta: p.meta, Parents: []Hash{}}
		if parent != "" {
			c.Parents = []Hash{parent}
		}
		scratch = appendCanonicalCommit(scratch[:0], &c)
		c.Hash = sha256Hex(scratch)
		out[i] = c
		parent = c.Hash
	}
	return out
}

// Edit records an edit commit replacing the text of the commit ref names.
// A tract edits only its own commits; an edit cannot be edited, nor a merge.
func (r *Repo) Edit(ctx context.Context, tractName, ref, text, message string) (Commit, error) {
	t, target, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return Commit{}, err
	}
	var out Commit
	err = r.retry(ctx, func() error {
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			h, err := readHead(ctx, tx, t.ID)
			if err != nil {
				return err
			}
			content, err := editableContent(ctx, tx, t, h.Commit, target)
			if err != nil {
				return err
			}
			content.Text = text
			out, err = putEdit(ctx, tx, t.ID, h.Commit, target, content, message, now)
			if err != nil {
				return err
			}
			return moveHead(ctx, tx, t.ID, h, out.Hash, "edit", now)
		})
	})
	return out, err
}

// editableContent checks that t may edit target from head and returns the
// target's content.
func editableContent(ctx context.Context, rd Reader, t Tract, head, target Hash) (Content, error) {
	tc, err := rd.Commit(ctx, target)
	if err != nil {
		return Content{}, fmt.Errorf("edit target %s: %w", target.Short(), err)
	}
	switch {
	case tc.Tract != t.ID:
		return Content{}, &ValidationError{Field: "edit target", Value: target.Short(), Reason: "belongs to another tract; a tract edits only its own commits (annotate it instead)"}
	case tc.Operation == OpEdit:
		return Content{}, &ValidationError{Field: "edit target", Value: target.Short(), Reason: "is an edit; edit the original commit instead"}
	case tc.Operation == OpMerge:
		return Content{}, &ValidationError{Field: "edit target", Value: target.Short(), Reason: "is a merge commit, which has no content"}
	case tc.Operation == OpCompress:
		return Content{}, &ValidationError{Field: "edit target", Value: target.Short(), Reason: "is a summary; compress the range again, or annotate the summary skip"}
	}
	if head == "" {
		return Content{}, &ValidationError{Field: "edit target", Value: target.Short(), Reason: "is not in the current history"}
	}
	anc, err := rd.Ancestry(ctx, []Hash{head})
	if err != nil {
		return Content{}, err
	}
	found := false
	for _, c := range anc {
		if c.Hash == target {
			found = true
			break
		}
	}
	if !found {
		return Content{}, &ValidationError{Field: "edit target", Value: target.Short(), Reason: "is not in the current history"}
	}
	blobs, err := rd.Blobs(ctx, []Hash{tc.Content}, "")
	if err != nil {
		return Content{}, err
	}
	if len(blobs) != 1 {
		return Content{}, fmt.Errorf("blob %s of commit %s: %w", tc.Content.Short(), target.Short(), ErrNotFound)
	}
	return DecodeContent(blobs[0].Data)
}

func putEdit(ctx context.Context, tx Tx, tractID string, parent, target Hash, content Content, message string, now time.Time) (Commit, error) {
	content, err := content.Normalize()
	if err != nil {
		return Commit{}, err
	}
	b, err := NewBlob(content)
	if err != nil {
		return Commit{}, err
	}
	if err := tx.PutBlobs(ctx, b); err != nil {
		return Commit{}, err
	}
	c := Commit{Parents: []Hash{parent}, Content: b.Hash, Operation: OpEdit, EditTarget: target, Tract: tractID, Time: now, Message: message}
	c.Hash = c.ComputeHash()
	return c, putCommits(ctx, tx, c)
}

// Annotate records the tract's priority for the commit ref names; any
// commit (another tract's too) may be annotated.
func (r *Repo) Annotate(ctx context.Context, tractName, ref string, p Priority, reason string) (Annotation, error) {
	if _, err := ParsePriority(string(p)); err != nil {
		return Annotation{}, err
	}
	t, target, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return Annotation{}, err
	}
	a := Annotation{Viewer: t.ID, Commit: target, Priority: p, Reason: reason, Time: r.clock()}
	err = r.store.Update(ctx, func(tx Tx) error {
		h, err := readHead(ctx, tx, t.ID)
		if err != nil {
			return err
		}
		a.Head = h.Commit
		return tx.AddAnnotation(ctx, a)
	})
	return a, err
}

// CherryPick appends a new commit with the content of ref's commit on the
// current head. An edit is picked as an edit of the same target.
func (r *Repo) CherryPick(ctx context.Context, tractName, ref string) (Commit, error) {
	t, src, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return Commit{}, err
	}
	sc, err := r.store.Commit(ctx, src)
	if err != nil {
		return Commit{}, err
	}
	if sc.Operation == OpMerge || sc.Operation == OpCompress {
		return Commit{}, &ValidationError{Field: "cherry-pick source", Value: src.Short(), Reason: "is a " + string(sc.Operation) + " commit"}
	}
	var out Commit
	err = r.retry(ctx, func() error {
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			h, err := readHead(ctx, tx, t.ID)
			if err != nil {
				return err
			}
			out = Commit{Content: sc.Content, Operation: sc.Operation, EditTarget: sc.EditTarget, Tract: t.ID, Time: now,
				Message: "cherry-pick " + src.Short(), Parents: []Hash{}}
			if sc.Operation == OpEdit {
				if _, err := editableContent(ctx, tx, t, h.Commit, sc.EditTarget); err != nil {
					return err
				}
			}
			if h.Commit != "" {
				out.Parents = []Hash{h.Commit}
			}
			out.Hash = out.ComputeHash()
			if err := putCommits(ctx, tx, out); err != nil {
				return err
			}
			return moveHead(ctx, tx, t.ID, h, out.Hash, "cherry-pick", now)
		})
	})
	return out, err
}

// eagerCountMax bounds the appends whose tokens are counted at write time:
// an import of thousands of messages leaves counting to the first compile.
const eagerCountMax = 16
