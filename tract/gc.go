package tract

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultRetention is how long unreachable commits and reflog entries are
// kept by default.
const DefaultRetention = 7 * 24 * time.Hour

// ParseRetention reads a retention: a Go duration (0s, 12h) or a number
// of days (7d), not negative.
func ParseRetention(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if days, err := strconv.Atoi(d); err == nil && days >= 0 && strconv.Itoa(days) == d {
			return time.Duration(days) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid retention %q (want a duration such as 0s, 12h or 7d)", s)
	}
	return d, nil
}

// GCOptions tune a garbage collection.
type GCOptions struct {
	// Retention keeps unreachable commits and reflog entries younger than
	// this (0 means none are kept; use DefaultRetention for the default).
	Retention time.Duration
	// DryRun lists what would go and changes nothing.
	DryRun bool
	// Progress, when set, is told how far the collection has got.
	Progress func(phase string, done, total int)
}

// GCReport says what a collection found and removed.
type GCReport struct {
	Scanned   int    `json:"scanned"`
	Reachable int    `json:"reachable"`
	Kept      int    `json:"kept"`
	Removed   []Hash `json:"removed"`
	Blobs     int    `json:"blobs"`
	Reflog    int    `json:"reflog"`
	DryRun    bool   `json:"dryRun"`
}

// GC removes commits nothing reaches. Roots are every ref of every live
// tract, the spawn points of live tracts, and reflog entries younger than
// the retention; edges are every parent (in any tract) and every edit
// target. Unreachable commits younger than the retention stay, with
// everything they reach. Removed commits take their annotations along; a
// blob goes when no commit uses it. The whole collection is one
// transaction, so concurrent writers wait rather than race it.
func (r *Repo) GC(ctx context.Context, o GCOptions) (GCReport, error) {
	rep := GCReport{DryRun: o.DryRun, Removed: []Hash{}}
	progress := o.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	cutoff := r.clock().Add(-o.Retention)
	run := func(tx Tx) error {
		graph := map[Hash]*Commit{}
		err := tx.ScanCommits(ctx, func(c Commit) error {
			graph[c.Hash] = &c
			if len(graph)%10000 == 0 {
				progress("scan", len(graph), 0)
			}
			return nil
		})
		if err != nil {
			return err
		}
		rep.Scanned = len(graph)
		progress("scan", len(graph), len(graph))
		roots, err := gcRoots(ctx, tx, cutoff)
		if err != nil {
			return err
		}
		reach := map[Hash]bool{}
		mark(graph, roots, reach)
		rep.Reachable = len(reach)
		var recent []Hash
		for h, c := range graph {
			if !reach[h] && c.Time.After(cutoff) {
				recent = append(recent, h)
			}
		}
		mark(graph, recent, reach)
		rep.Kept = len(reach) - rep.Reachable
		for h := range graph {
			if !reach[h] {
				rep.Removed = append(rep.Removed, h)
			}
		}
		sort.Slice(rep.Removed, func(i, j int) bool { return rep.Removed[i] < rep.Removed[j] })
		progress("mark", len(reach), len(graph))
		if o.DryRun {
			return nil
		}
		const batch = 1000
		for i := 0; i < len(rep.Removed); i += batch {
			if err := tx.DeleteCommits(ctx, rep.Removed[i:min(i+batch, len(rep.Removed))]); err != nil {
				return err
			}
			progress("delete", min(i+batch, len(rep.Removed)), len(rep.Removed))
		}
		if rep.Blobs, err = tx.DeleteUnusedBlobs(ctx); err != nil {
			return err
		}
		// Compile checkpoints go with their head (DeleteCommits); damaged
		// ones go here, to be rebuilt by the next compile.
		if err := dropDamagedViews(ctx, tx); err != nil {
			return err
		}
		rep.Reflog, err = tx.PruneReflog(ctx, cutoff.Add(time.Nanosecond))
		return err
	}
	if err := r.store.Update(ctx, run); err != nil {
		return GCReport{}, err
	}
	return rep, nil
}

// gcRoots lists the commits GC must keep with all they reach.
func gcRoots(ctx context.Context, rd Finder, cutoff time.Time) ([]Hash, error) {
	var roots []Hash
	refs, err := rd.Refs(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		if !strings.HasPrefix(ref.Value, branchPrefix) {
			roots = append(roots, Hash(ref.Value))
		}
	}
	log, err := rd.Reflog(ctx, ReflogQuery{Since: cutoff})
	if err != nil {
		return nil, err
	}
	for _, e := range log {
		if !e.Time.After(cutoff) {
			continue
		}
		for _, v := range []string{e.Old, e.New} {
			if v != "" && !strings.HasPrefix(v, branchPrefix) {
				roots = append(roots, Hash(v))
			}
		}
	}
	tracts, err := rd.Tracts(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tracts {
		if t.Spawn != nil && t.Spawn.Commit != "" {
			roots = append(roots, t.Spawn.Commit)
		}
	}
	return roots, nil
}

// mark adds to reach everything reachable from roots through parents and
// edit targets.
func mark(graph map[Hash]*Commit, roots []Hash, reach map[Hash]bool) {
	stack := append([]Hash(nil), roots...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c, ok := graph[h]
		if !ok || reach[h] {
			continue
		}
		reach[h] = true
		stack = append(stack, c.Parents...)
		if c.EditTarget != "" {
			stack = append(stack, c.EditTarget)
		}
	}
}

// dropDamagedViews deletes the compile checkpoints that do not match their
// hashes.
func dropDamagedViews(ctx context.Context, tx Tx) error {
	var bad []CompiledView
	err := tx.ScanCompiledViews(ctx, func(cv CompiledView) error {
		if checkView(&cv) != nil {
			bad = append(bad, cv)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, cv := range bad {
		if err := tx.DeleteCompiledView(ctx, cv.Viewer, cv.Encoding); err != nil {
			return err
		}
	}
	return nil
}
