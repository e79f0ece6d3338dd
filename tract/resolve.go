package tract

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MinPrefix is the shortest hash prefix a ref may use.
const MinPrefix = 4

// Resolve turns a ref into a commit hash, seen from tract t: a full hash, a
// unique prefix of at least 4 hex characters, a branch name, a tag name,
// HEAD, any of these followed by ~N (the Nth first parent), or TRACT:REF for
// another tract's ref. A branch wins over a tag, a tag over a hash prefix.
func (r *Repo) Resolve(ctx context.Context, t Tract, ref string) (Hash, error) {
	return resolve(ctx, r.store, t, ref)
}

func resolve(ctx context.Context, rd Finder, t Tract, ref string) (Hash, error) {
	if ref == "" {
		return "", &ValidationError{Field: "ref", Reason: "empty"}
	}
	if at, ok := parseRefTime(ref); ok {
		return commitAtTime(ctx, rd, t, ref, at)
	}
	if timeLike(ref) {
		return "", &ValidationError{Field: "ref", Value: ref, Reason: "is no time lineage reads: give RFC 3339 (2026-01-02T12:00:00Z) or a date (2026-01-02, its midnight UTC)"}
	}
	if i := strings.IndexByte(ref, ':'); i >= 0 {
		other, err := rd.Tract(ctx, ref[:i])
		if err != nil {
			return "", fmt.Errorf("ref %q: tract %q: %w", ref, ref[:i], err)
		}
		return resolve(ctx, rd, other, ref[i+1:])
	}
	base, back := ref, 0
	if i := strings.IndexByte(ref, '~'); i >= 0 {
		base = ref[:i]
		n := ref[i+1:]
		back = 1
		if n != "" {
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 {
				return "", &ValidationError{Field: "ref", Value: ref, Reason: "~ takes a non-negative number"}
			}
			back = v
		}
	}
	h, err := resolveBase(ctx, rd, t, base)
	if err != nil {
		return "", err
	}
	if back == 0 {
		return h, nil
	}
	anc, have, ok, err := firstParentAncestor(ctx, rd, h, back)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("ref %q: history has only %d commit(s) before it: %w", ref, have, ErrNotFound)
	}
	return anc, nil
}

func resolveBase(ctx context.Context, rd Finder, t Tract, base string) (Hash, error) {
	if base == HeadRef {
		h, err := readHead(ctx, rd, t.ID)
		if err != nil {
			return "", err
		}
		if h.Commit == "" {
			return "", fmt.Errorf("tract %q: HEAD: %w", t.Name, ErrNoCommits)
		}
		return h.Commit, nil
	}
	if b, err := rd.Ref(ctx, t.ID, base); err == nil {
		return Hash(b.Value), nil
	} else if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if b, err := rd.Ref(ctx, t.ID, tagPrefix+base); err == nil {
		return Hash(b.Value), nil
	} else if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if !isHex(base) {
		return "", fmt.Errorf("ref %q in tract %q: %w", base, t.Name, ErrNotFound)
	}
	if len(base) < MinPrefix {
		return "", &ValidationError{Field: "ref", Value: base, Reason: fmt.Sprintf("not a branch, and a hash prefix needs at least %d characters", MinPrefix)}
	}
	hashes, err := rd.CommitsWithPrefix(ctx, strings.ToLower(base), 2)
	if err != nil {
		return "", err
	}
	switch len(hashes) {
	case 0:
		return "", fmt.Errorf("commit %q: %w", base, ErrNotFound)
	case 1:
		return hashes[0], nil
	}
	return "", fmt.Errorf("hash prefix %q is %w: matches %s and %s", base, ErrAmbiguous, hashes[0].Short(), hashes[1].Short())
}

func isHex(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// tractRef looks up the tract named tractName and resolves ref in it: the
// first step of every command that acts on a commit.
func (r *Repo) tractRef(ctx context.Context, tractName, ref string) (Tract, Hash, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return Tract{}, "", err
	}
	h, err := r.Resolve(ctx, t, ref)
	if err != nil {
		return Tract{}, "", err
	}
	return t, h, nil
}

// parseRefTime reads a ref that is a point in time: RFC 3339
// (2026-01-02T03:04:05Z, with any offset) or a date (2026-01-02, midnight
// UTC). No branch, tag or tract name can look like one (they hold no ':'
// and a date is no hash prefix).
func parseRefTime(ref string) (time.Time, bool) {
	if len(ref) < 10 || ref[4] != '-' || ref[0] < '0' || ref[0] > '9' {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, ref); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.DateOnly, ref); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// timeLike reports whether ref starts like a date and a time
// (YYYY-MM-DD, then T or a space, then a digit): never a ref of another
// kind (a tract or branch name holds no space, and TRACT:REF with such a
// tract name would be odd enough to be a time gone wrong).
func timeLike(ref string) bool {
	if len(ref) < 12 || (ref[10] != 'T' && ref[10] != ' ') || ref[11] < '0' || ref[11] > '9' {
		return false
	}
	for i, c := range ref[:10] {
		if (i == 4 || i == 7) != (c == '-') || (c != '-' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

// commitAtTime is the newest commit of HEAD's first-parent history made at
// or before at: the context as it was then (compile --at TIME).
func commitAtTime(ctx context.Context, rd Finder, t Tract, ref string, at time.Time) (Hash, error) {
	h, err := readHead(ctx, rd, t.ID)
	if err != nil {
		return "", err
	}
	for c := h.Commit; c != ""; {
		commit, err := rd.Commit(ctx, c)
		if err != nil {
			return "", err
		}
		if !commit.Time.After(at) {
			return c, nil
		}
		c = ""
		if len(commit.Parents) > 0 {
			c = commit.Parents[0]
		}
	}
	return "", fmt.Errorf("ref %q: tract %q has no commit at or before %s on HEAD's first-parent history: %w", ref, t.Name, at.UTC().Format(time.RFC3339), ErrNotFound)
}
