package tract

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Branch is a branch of a tract.
type Branch struct {
	Name    string `json:"name"`
	Commit  Hash   `json:"commit"`
	Current bool   `json:"current"`
}

// Branches lists a tract's branches sorted by name; the current branch is
// listed even while unborn.
func (r *Repo) Branches(ctx context.Context, tractName string) ([]Branch, error) {
	t, h, err := r.Head(ctx, tractName)
	if err != nil {
		return nil, err
	}
	refs, err := r.store.Refs(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	var out []Branch
	seen := false
	for _, ref := range refs {
		if ref.Name == HeadRef || isTagRef(ref.Name) {
			continue
		}
		cur := ref.Name == h.Branch
		seen = seen || cur
		out = append(out, Branch{Name: ref.Name, Commit: Hash(ref.Value), Current: cur})
	}
	if h.Branch != "" && !seen {
		out = append(out, Branch{Name: h.Branch, Current: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateBranch creates branch name at from (default HEAD).
func (r *Repo) CreateBranch(ctx context.Context, tractName, name, from string) (Branch, error) {
	if err := ValidateBranchName(name); err != nil {
		return Branch{}, err
	}
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return Branch{}, err
	}
	if from == "" {
		from = HeadRef
	}
	at, err := r.Resolve(ctx, t, from)
	if err != nil {
		return Branch{}, err
	}
	err = r.store.Update(ctx, func(tx Tx) error {
		if _, err := tx.Ref(ctx, t.ID, name); err == nil {
			return fmt.Errorf("branch %q: %w", name, ErrExists)
		}
		return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: name, New: string(at), Operation: "branch", Time: r.clock()})
	})
	return Branch{Name: name, Commit: at}, err
}

// DeleteBranch deletes a branch. The current branch cannot be deleted; a
// branch whose tip HEAD does not reach needs force.
func (r *Repo) DeleteBranch(ctx context.Context, tractName, name string, force bool) error {
	t, h, err := r.Head(ctx, tractName)
	if err != nil {
		return err
	}
	if name == h.Branch {
		return fmt.Errorf("cannot delete branch %q: it is the %w", name, ErrCurrentBranch)
	}
	ref, err := r.store.Ref(ctx, t.ID, name)
	if err != nil || name == HeadRef || isTagRef(name) {
		return fmt.Errorf("branch %q: %w", name, ErrNotFound)
	}
	if !force {
		merged := false
		if h.Commit != "" {
			merged, err = isAncestor(ctx, r.store, Hash(ref.Value), h.Commit)
			if err != nil {
				return err
			}
		}
		if !merged {
			return fmt.Errorf("branch %q is %w into HEAD (use --force to delete it anyway)", name, ErrUnmerged)
		}
	}
	return r.store.Update(ctx, func(tx Tx) error {
		return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: name, Old: ref.Value, Operation: "branch delete", Time: r.clock()})
	})
}

// PreviousRef names the ref "-" stands for in switch and checkout: the
// branch HEAD was attached to before (branchOnly), or where HEAD was
// before the last switch or checkout, a branch or a commit.
const PreviousRef = "-"

// previousHead reads HEAD's reflog for the value it held before its
// current one: a branch ("branch:NAME") when branchOnly, else any.
func (r *Repo) previousHead(ctx context.Context, t Tract, branchOnly bool) (string, error) {
	cur, err := r.store.Ref(ctx, t.ID, HeadRef)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	log, err := r.store.Reflog(ctx, ReflogQuery{Tract: t.ID, Ref: HeadRef})
	if err != nil {
		return "", err
	}
	for i := len(log) - 1; i >= 0; i-- {
		old := log[i].Old
		if old == "" || old == cur.Value || branchOnly && !strings.HasPrefix(old, branchPrefix) {
			continue
		}
		if strings.HasPrefix(old, branchPrefix) {
			if _, err := r.store.Ref(ctx, t.ID, strings.TrimPrefix(old, branchPrefix)); err != nil {
				continue // deleted since
			}
		}
		return old, nil
	}
	what := "position of HEAD"
	if branchOnly {
		what = "branch"
	}
	return "", fmt.Errorf("tract %q: no previous %s to go back to (-): %w", t.Name, what, ErrNotFound)
}

// Switch attaches HEAD to an existing branch; "-" is the branch it was
// attached to before.
func (r *Repo) Switch(ctx context.Context, tractName, name string) error {
	_, err := r.SwitchTo(ctx, tractName, name)
	return err
}

// SwitchTo is Switch returning the branch switched to (what "-" meant).
func (r *Repo) SwitchTo(ctx context.Context, tractName, name string) (string, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return "", err
	}
	if name == PreviousRef {
		prev, err := r.previousHead(ctx, t, true)
		if err != nil {
			return "", err
		}
		name = strings.TrimPrefix(prev, branchPrefix)
	}
	return name, r.switchTo(ctx, t, name)
}

func (r *Repo) switchTo(ctx context.Context, t Tract, name string) error {
	if _, err := r.store.Ref(ctx, t.ID, name); err != nil || name == HeadRef || isTagRef(name) {
		if err == nil || errors.Is(err, ErrNotFound) {
			return fmt.Errorf("branch %q: %w", name, ErrNotFound)
		}
		return err
	}
	return r.setHead(ctx, t, branchPrefix+name, "switch")
}

// Checkout detaches HEAD at ref. "-" goes back to where HEAD was before
// the last switch or checkout: attached again when that was a branch.
func (r *Repo) Checkout(ctx context.Context, tractName, ref string) (Hash, error) {
	if ref == PreviousRef {
		t, err := r.Tract(ctx, tractName)
		if err != nil {
			return "", err
		}
		prev, err := r.previousHead(ctx, t, false)
		if err != nil {
			return "", err
		}
		if name, ok := strings.CutPrefix(prev, branchPrefix); ok {
			if err := r.switchTo(ctx, t, name); err != nil {
				return "", err
			}
			return r.Resolve(ctx, t, name)
		}
		return Hash(prev), r.setHead(ctx, t, prev, "checkout")
	}
	t, h, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return "", err
	}
	return h, r.setHead(ctx, t, string(h), "checkout")
}

func (r *Repo) setHead(ctx context.Context, t Tract, value, op string) error {
	return r.store.Update(ctx, func(tx Tx) error {
		old, err := tx.Ref(ctx, t.ID, HeadRef)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: HeadRef, Old: old.Value, New: value, Operation: op, Time: r.clock()})
	})
}

// Reset moves the current branch (or detached HEAD) to ref; the old tip
// stays in the reflog. The target is resolved in the transaction that moves
// the branch and the move is a compare-and-swap from the head it was
// resolved against: a reset racing an append resets relative to the new
// head or fails with ErrBranchMoved, never dropping the appended commit.
func (r *Repo) Reset(ctx context.Context, tractName, ref string) (Hash, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return "", err
	}
	if _, err := r.Resolve(ctx, t, ref); err != nil {
		return "", err
	}
	var to Hash
	err = r.store.Update(ctx, func(tx Tx) error {
		h, err := readHead(ctx, tx, t.ID)
		if err != nil {
			return err
		}
		if to, err = resolve(ctx, tx, t, ref); err != nil {
			return err
		}
		return moveHead(ctx, tx, t.ID, h, to, "reset", r.clock())
	})
	if errors.Is(err, ErrBranchMoved) {
		return "", fmt.Errorf("reset failed, nothing changed: %w", err)
	}
	return to, err
}
