package tract

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/agentlineage/lineage/internal/tokens"
)

// Batch is what WriteBatch writes to a tract in one transaction: what
// Import, AppendTo and SetTractsMeta would each write in one of their own.
type Batch struct {
	// Head is appended on the tract's current branch (or detached HEAD),
	// as Import appends it.
	Head []CommitRequest
	// Aside is appended to the branch named Branch without touching HEAD,
	// as AppendTo appends it.
	Branch string
	Aside  []CommitRequest
	// Meta, when set, gives the tract metadata to set (by tract name, as
	// SetTractsMeta takes it) once the commits are built: it may name
	// them. It runs in the transaction, once per attempt. Every tract it
	// names must be one of MetaTracts.
	Meta func(head, aside []Commit) map[string]map[string]string
	// MetaTracts are the tracts Meta may set metadata of (read before the
	// transaction; a missing one fails the batch with ErrNotFound before
	// anything is written).
	MetaTracts []string
}

// WriteBatch writes b in one transaction and returns the commits of its
// Head and Aside: an importer's records, the side records and the cursor
// that says they are stored, all or none, with one commit of the store
// where three writes took three. Each part is checked as its own call
// checks it, and the commits are the ones those calls would build.
func (r *Repo) WriteBatch(ctx context.Context, tractName string, b Batch) (head, aside []Commit, err error) {
	if len(b.Aside) > 0 {
		if err := ValidateBranchName(b.Branch); err != nil {
			return nil, nil, err
		}
	}
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return nil, nil, err
	}
	ids := map[string]string{}
	for _, name := range b.MetaTracts {
		mt, err := r.Tract(ctx, name)
		if err != nil {
			return nil, nil, err
		}
		ids[name] = mt.ID
	}
	hw := headWriter{reqs: b.Head}
	if counter, count := r.eager(); count && len(b.Head) <= eagerCountMax {
		hw.counter = counter
	}
	if err := hw.prepareFirst(); err != nil {
		return nil, nil, err
	}
	pa, err := prepareAll(b.Aside, func(i int, err error) error {
		return &ValidationError{Field: "request " + strconv.Itoa(i+1), Reason: err.Error()}
	})
	if err != nil {
		return nil, nil, err
	}
	err = r.retry(ctx, func() error {
		head, aside = head[:0], aside[:0]
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			if head, err = hw.write(ctx, tx, t.ID, now); err != nil {
				return err
			}
			if aside, err = writeAside(ctx, tx, t.ID, b.Branch, pa, now); err != nil {
				return err
			}
			if b.Meta == nil {
				return nil
			}
			return putTractsMeta(ctx, tx, ids, b.Meta(head, aside))
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return head, aside, nil
}

// prepareAll prepares reqs; wrap names the invalid one of several.
func prepareAll(reqs []CommitRequest, wrap func(int, error) error) ([]preparedAppend, error) {
	out := make([]preparedAppend, len(reqs))
	for i, req := range reqs {
		p, err := prepareAppend(req)
		if err != nil && len(reqs) > 1 {
			return nil, wrap(i, err)
		} else if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// headWriter appends requests on a tract's HEAD as Import does: checked
// and prepared an importChunk at a time (the first before the
// transaction), so a long import holds one chunk's blobs at a time.
type headWriter struct {
	reqs    []CommitRequest
	counter tokens.Counter // set when the blobs are counted as Import counts them
	first   []preparedAppend
}

func (hw *headWriter) prepareFirst() error {
	var err error
	hw.first, err = hw.prepare(0, nil)
	return err
}

// prepare prepares the chunk of requests from the from'th, in buf.
func (hw *headWriter) prepare(from int, buf []preparedAppend) ([]preparedAppend, error) {
	out := buf[:0]
	for i, req := range hw.reqs[from:min(from+importChunk, len(hw.reqs))] {
		p, err := prepareAppend(req)
		if err != nil && len(hw.reqs) > 1 {
			return nil, fmt.Errorf("message %d: %w", from+i+1, err)
		} else if err != nil {
			return nil, err
		}
		if hw.counter != nil {
			p.blob.Tokens, p.blob.Encoding = hw.counter.Count(p.req.Content.RenderedText()), hw.counter.Encoding()
		}
		out = append(out, p)
	}
	return out, nil
}

// write appends the requests on HEAD in tx.
func (hw *headWriter) write(ctx context.Context, tx Tx, tractID string, now time.Time) ([]Commit, error) {
	if len(hw.reqs) == 0 {
		return nil, nil
	}
	h, err := readHead(ctx, tx, tractID)
	if err != nil {
		return nil, err
	}
	out := make([]Commit, 0, len(hw.reqs))
	w := chunkWriter{tx: tx, tract: tractID, parent: h.Commit, now: now, emit: func(cs []Commit) { out = append(out, cs...) }}
	chunk := hw.first
	var buf []preparedAppend
	for from := len(chunk); ; from += len(chunk) {
		if err := w.store(ctx, w.chain(chunk, nil)); err != nil {
			return nil, err
		}
		if from == len(hw.reqs) {
			break
		}
		if buf == nil {
			buf = make([]preparedAppend, 0, importChunk)
		}
		if chunk, err = hw.prepare(from, buf); err != nil {
			return nil, err
		}
	}
	return out, moveHead(ctx, tx, tractID, h, w.parent, "commit", now)
}

// writeAside appends prepared to branch as AppendTo does.
func writeAside(ctx context.Context, tx Tx, tractID, branch string, prepared []preparedAppend, now time.Time) ([]Commit, error) {
	if len(prepared) == 0 {
		return nil, nil
	}
	ref, err := tx.Ref(ctx, tractID, branch)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var out []Commit
	w := chunkWriter{tx: tx, tract: tractID, parent: Hash(ref.Value), now: now, emit: func(cs []Commit) { out = append(out, cs...) }}
	if err := w.store(ctx, w.chain(prepared, nil)); err != nil {
		return nil, err
	}
	return out, tx.UpdateRef(ctx, RefUpdate{Tract: tractID, Name: branch, Old: ref.Value, New: string(w.parent), Operation: "commit", Time: now})
}

// putTractsMeta sets tract metadata as SetTractsMeta does, in tx; ids are
// the tracts' ids by name.
func putTractsMeta(ctx context.Context, tx Tx, ids map[string]string, sets map[string]map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		id, ok := ids[name]
		if !ok {
			return fmt.Errorf("tract %s: metadata set by a batch that did not name it: %w", name, ErrNotFound)
		}
		settings, err := metaSettings(id, sets[name])
		if err != nil {
			return err
		}
		for _, st := range settings {
			if err := tx.PutSetting(ctx, st); err != nil {
				return err
			}
		}
	}
	return nil
}
