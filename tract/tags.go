package tract

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Tags are named, fixed pointers to commits, kept as refs of a tract under
// the name "tag:NAME". A branch name cannot hold ":", so a tag never
// shadows a branch; tags are GC roots like every ref and resolve wherever
// a ref is taken (a branch of the same name wins).
const tagPrefix = "tag:"

// Tag is one tag of a tract.
type Tag struct {
	Name   string `json:"name"`
	Commit Hash   `json:"commit"`
}

func isTagRef(name string) bool { return strings.HasPrefix(name, tagPrefix) }

// ValidateTagName applies the branch name rules to tag names.
func ValidateTagName(name string) error {
	if reason := badRefName(name); reason != "" {
		return &ValidationError{Field: "tag name", Value: name, Reason: reason}
	}
	return nil
}

// CreateTag points tag name at ref (default HEAD); an existing tag is an
// error wrapping ErrExists.
func (r *Repo) CreateTag(ctx context.Context, tractName, name, ref string) (Tag, error) {
	if err := ValidateTagName(name); err != nil {
		return Tag{}, err
	}
	if ref == "" {
		ref = HeadRef
	}
	t, at, err := r.tractRef(ctx, tractName, ref)
	if err != nil {
		return Tag{}, err
	}
	err = r.store.Update(ctx, func(tx Tx) error {
		if old, err := tx.Ref(ctx, t.ID, tagPrefix+name); err == nil {
			return fmt.Errorf("tag %q (at %s): %w", name, Hash(old.Value).Short(), ErrExists)
		}
		return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: tagPrefix + name, New: string(at), Operation: "tag", Time: r.clock()})
	})
	if err != nil {
		return Tag{}, err
	}
	return Tag{Name: name, Commit: at}, nil
}

// DeleteTag removes a tag; the commit it named stays.
func (r *Repo) DeleteTag(ctx context.Context, tractName, name string) (Tag, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return Tag{}, err
	}
	var tag Tag
	err = r.store.Update(ctx, func(tx Tx) error {
		ref, err := tx.Ref(ctx, t.ID, tagPrefix+name)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("tag %q in tract %q: %w", name, t.Name, ErrNotFound)
		} else if err != nil {
			return err
		}
		tag = Tag{Name: name, Commit: Hash(ref.Value)}
		return tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: ref.Name, Old: ref.Value, Operation: "tag delete", Time: r.clock()})
	})
	return tag, err
}

// Tags lists a tract's tags sorted by name.
func (r *Repo) Tags(ctx context.Context, tractName string) ([]Tag, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return nil, err
	}
	refs, err := r.store.Refs(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	out := []Tag{}
	for _, ref := range refs {
		if isTagRef(ref.Name) {
			out = append(out, Tag{Name: strings.TrimPrefix(ref.Name, tagPrefix), Commit: Hash(ref.Value)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// TagPattern reports whether a --tag value is a pattern (it holds one of
// *, ? or [, which no tag name may) rather than a tag's name.
func TagPattern(s string) bool { return strings.ContainsAny(s, "*?[") }

// validateTagMatch checks a --tag value: a tag name, or a pattern in the
// syntax of path.Match ("v1.*", "release-?", "[ab]*").
func validateTagMatch(s string) error {
	if !TagPattern(s) {
		return ValidateTagName(s)
	}
	if _, err := path.Match(s, ""); err != nil {
		return &ValidationError{Field: "tag pattern", Value: s, Reason: "malformed (want a tag name or a pattern with *, ? and [...])"}
	}
	return nil
}

// tagCommits are the commits the tags of tract t matching pattern name
// (a tag's name names one), sorted and without duplicates. A pattern
// matching no tag is "not found", like an unknown tag.
func tagCommits(ctx context.Context, rd Reader, t Tract, pattern string) ([]Hash, error) {
	if !TagPattern(pattern) {
		h, err := tagCommit(ctx, rd, t, pattern)
		if err != nil {
			return nil, err
		}
		return []Hash{h}, nil
	}
	refs, err := rd.Refs(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	var out []Hash
	for _, ref := range refs {
		if !isTagRef(ref.Name) {
			continue
		}
		if ok, _ := path.Match(pattern, strings.TrimPrefix(ref.Name, tagPrefix)); ok {
			out = append(out, Hash(ref.Value))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no tag matching %q in tract %q: %w", pattern, t.Name, ErrNotFound)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// tagCommit is the commit tag name of tract t points at.
func tagCommit(ctx context.Context, rd Reader, t Tract, name string) (Hash, error) {
	ref, err := rd.Ref(ctx, t.ID, tagPrefix+name)
	if errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("tag %q in tract %q: %w", name, t.Name, ErrNotFound)
	} else if err != nil {
		return "", err
	}
	return Hash(ref.Value), nil
}
