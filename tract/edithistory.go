package tract

import (
	"context"
	"fmt"
	"time"
)

// EditVersion is one version of a commit's content: the original (version
// 0) or an edit of it.
type EditVersion struct {
	Version   int       `json:"version"`
	Commit    Hash      `json:"commit"`
	Operation Operation `json:"operation"`
	Time      time.Time `json:"time"`
	Message   string    `json:"message,omitempty"`
	// Blob is the content's hash: versions with one blob say the same.
	Blob    Hash    `json:"blob"`
	Content Content `json:"content"`
}

// EditHistory is every version of a commit's content in the current
// history, in the order compile applies them: the last is what compiles.
type EditHistory struct {
	Tract    string        `json:"tract"`
	Target   Hash          `json:"target"`
	Current  int           `json:"current"`
	Versions []EditVersion `json:"versions"`
}

// EditHistory lists the versions of ref's content that the tract's HEAD
// holds: the commit itself (version 0), then its edits in the order of
// the linearization, whose last one compile shows. ref may name an edit:
// its target's history is listed. Like Edit, it reads the history.
func (r *Repo) EditHistory(ctx context.Context, tractName, ref string) (EditHistory, error) {
	t, target, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return EditHistory{}, err
	}
	return r.editHistory(ctx, r.store, t, target)
}

func (r *Repo) editHistory(ctx context.Context, rd Reader, t Tract, target Hash) (EditHistory, error) {
	if c, err := rd.Commit(ctx, target); err == nil && c.Operation == OpEdit {
		target = c.EditTarget
	}
	h, err := readHead(ctx, rd, t.ID)
	if err != nil {
		return EditHistory{}, err
	}
	if _, err := editableContent(ctx, rd, t, h.Commit, target); err != nil {
		return EditHistory{}, err
	}
	anc, err := rd.Ancestry(ctx, []Hash{h.Commit})
	if err != nil {
		return EditHistory{}, err
	}
	byHash := make(map[Hash]*Commit, len(anc))
	for i := range anc {
		byHash[anc[i].Hash] = &anc[i]
	}
	l := &linearizer{get: mapSource(byHash)}
	if err := l.add(h.Commit); err != nil {
		return EditHistory{}, err
	}
	var commits []*Commit
	var blobs []Hash
	for _, c := range l.order {
		if c.Hash == target || (c.Operation == OpEdit && c.EditTarget == target) {
			commits = append(commits, c)
			blobs = append(blobs, c.Content)
		}
	}
	stored, err := rd.Blobs(ctx, blobs, "")
	if err != nil {
		return EditHistory{}, err
	}
	data := make(map[Hash][]byte, len(stored))
	for _, b := range stored {
		data[b.Hash] = b.Data
	}
	out := EditHistory{Tract: t.Name, Target: target, Versions: make([]EditVersion, 0, len(commits))}
	for i, c := range commits {
		raw, ok := data[c.Content]
		if !ok {
			return EditHistory{}, fmt.Errorf("blob %s of commit %s: %w", c.Content.Short(), c.Hash.Short(), ErrNotFound)
		}
		content, err := DecodeContent(raw)
		if err != nil {
			return EditHistory{}, fmt.Errorf("commit %s: %w", c.Hash.Short(), err)
		}
		out.Versions = append(out.Versions, EditVersion{Version: i, Commit: c.Hash, Operation: c.Operation, Time: c.Time, Message: c.Message, Blob: c.Content, Content: content})
	}
	out.Current = len(out.Versions) - 1
	return out, nil
}

// RestoreEdit records an edit of ref's commit that brings back version
// (see EditHistory) of its content: the original or an earlier edit. The
// restored content is the stored blob's, so no blob is added. Restoring
// a version whose content compile shows already is refused.
func (r *Repo) RestoreEdit(ctx context.Context, tractName, ref string, version int, message string) (Commit, error) {
	t, target, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return Commit{}, err
	}
	var out Commit
	err = r.retry(ctx, func() error {
		now := r.clock()
		return r.store.Update(ctx, func(tx Tx) error {
			hist, err := r.editHistory(ctx, tx, t, target)
			if err != nil {
				return err
			}
			switch {
			case version < 0 || version >= len(hist.Versions):
				return &ValidationError{Field: "version", Value: fmt.Sprint(version), Reason: fmt.Sprintf("%s has versions 0 to %d (see edit --history)", hist.Target.Short(), len(hist.Versions)-1)}
			case hist.Versions[version].Blob == hist.Versions[hist.Current].Blob:
				return &ValidationError{Field: "version", Value: fmt.Sprint(version), Reason: fmt.Sprintf("is what %s compiles to already (nothing changed)", hist.Target.Short())}
			}
			if message == "" {
				message = fmt.Sprintf("restore version %d of %s", version, hist.Target.Short())
			}
			h, err := readHead(ctx, tx, t.ID)
			if err != nil {
				return err
			}
			out, err = putEdit(ctx, tx, t.ID, h.Commit, hist.Target, hist.Versions[version].Content, message, now)
			if err != nil {
				return err
			}
			return moveHead(ctx, tx, t.ID, h, out.Hash, "edit", now)
		})
	})
	return out, err
}
