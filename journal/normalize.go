package journal

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Tidy selects the documents normalize and migrate work on: the context of
// Slug at the write root, or every triad document under Dir.
type Tidy struct {
	Slug string
	Dir  string
	// Kinds limits the kinds (default all three).
	Kinds []triad.DocKind
	// SortBacklog orders an agenda's backlog: "" or "none", "title", "id".
	SortBacklog string
	// Write applies the changes; otherwise nothing is written.
	Write bool
}

// TidyResult reports one document.
type TidyResult struct {
	File    string `json:"file"`
	Kind    string `json:"kind"`
	Changed bool   `json:"changed"`
	Written bool   `json:"written"`
	// RenamedFrom is the legacy name a migrated document had.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// Diff is a unified diff of the change (migrate).
	Diff string `json:"diff,omitempty"`
	// References are the references to renamed documents this file's
	// change rewrites ("old → new"; migrate).
	References []string `json:"references,omitempty"`
}

// skipDirs are never walked by a --dir scan (CLIA's list).
var skipDirs = map[string]bool{".git": true, ".build": true, "DerivedData": true, "node_modules": true, ".generated": true}

// tidyFiles lists the triad documents selected by t, sorted by path: each
// current or legacy name directly in a context directory.
func tidyFiles(opts Options, t Tidy) ([]string, error) {
	var dirs []string
	switch {
	case (t.Slug == "") == (t.Dir == ""):
		return nil, fmt.Errorf("give exactly one of a slug or a directory")
	case t.Slug != "":
		tg, err := ResolveTarget(opts.Agents, t.Slug, opts.Scope, opts.AgentsDir)
		if err != nil {
			return nil, err
		}
		dirs = []string{tg.Dir}
	default:
		root := fsx.Abs(opts.Agents.Path, t.Dir)
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("directory %s does not exist", root)
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	kinds := map[triad.DocKind]bool{}
	for _, k := range t.Kinds {
		kinds[k] = true
	}
	var files []string
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			k, _, ok := triad.Match(e.Name())
			if ok && e.Type().IsRegular() && (len(kinds) == 0 || kinds[k]) {
				files = append(files, filepath.Join(d, e.Name()))
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// Normalize applies CLIA's ordering rules (`triads normalize`) to the
// documents t selects: an agency's entries newest first (by timestamp
// text, stable); an agenda's milestones by status (planned, in-progress,
// at-risk, done, others, dropped), then due date (undated last), then title,
// and its backlog by title or by slug when asked; an agent's links by title
// then URL (case-insensitive, missing last) and a string-only
// extensions.operationModes case-insensitively. Only array order changes:
// every key, value, number text and the file's layout stay, so a second run
// changes nothing.
func Normalize(ctx context.Context, opts Options, t Tidy) ([]TidyResult, error) {
	switch t.SortBacklog {
	case "", "none", "title", "id":
	default:
		return nil, fmt.Errorf("unknown backlog order %q (want none, title or id)", t.SortBacklog)
	}
	files, err := tidyFiles(opts, t)
	if err != nil {
		return nil, err
	}
	out := []TidyResult{}
	for _, f := range files {
		k, _, _ := triad.Match(filepath.Base(f))
		r := TidyResult{File: f, Kind: string(k)}
		r.Changed, r.Written, err = rewrite(ctx, f, t.Write, func(doc *triad.Value) (bool, error) {
			return normalizeDoc(doc, k, t.SortBacklog), nil
		})
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// rewrite reads f, applies edit and, when it changed something and write
// is set, replaces f atomically under its directory's lock (re-reading
// under the lock so a concurrent writer's change is not lost).
func rewrite(ctx context.Context, f string, write bool, edit func(*triad.Value) (bool, error)) (changed, written bool, err error) {
	apply := func() ([]byte, bool, os.FileMode, error) {
		doc, layout, perm, err := readAgency(f)
		if err != nil {
			return nil, false, 0, err
		}
		ch, err := edit(doc)
		if err != nil || !ch {
			return nil, false, perm, err
		}
		return triad.Encode(doc, layout), true, perm, nil
	}
	if _, changed, _, err = apply(); err != nil || !changed || !write {
		return changed, false, err
	}
	dir := filepath.Dir(f)
	if err := checkFile(dir, f); err != nil {
		return true, false, err
	}
	lock, err := fsx.LockFile(ctx, filepath.Join(dir, lockName))
	if err != nil {
		return true, false, err
	}
	defer lock.Unlock()
	data, changed, perm, err := apply()
	if err != nil || !changed {
		return changed, false, err
	}
	return true, true, fsx.WriteFileAtomic(f, data, perm)
}

func normalizeDoc(doc *triad.Value, k triad.DocKind, backlog string) bool {
	changed := false
	sortArr := func(v *triad.Value, less func(a, b *triad.Value) bool) {
		if v == nil || v.Kind != triad.Array {
			return
		}
		before := append([]*triad.Value(nil), v.Items...)
		sort.SliceStable(v.Items, func(i, j int) bool { return less(v.Items[i], v.Items[j]) })
		for i := range before {
			if before[i] != v.Items[i] {
				changed = true
				return
			}
		}
	}
	switch k {
	case triad.Agency:
		sortArr(doc.Get("entries"), func(a, b *triad.Value) bool { return a.Str("timestamp") > b.Str("timestamp") })
	case triad.Agenda:
		sortArr(doc.Get("milestones"), milestoneLess)
		switch backlog {
		case "title":
			sortArr(doc.Get("backlog"), func(a, b *triad.Value) bool { return lowerTitle(a) < lowerTitle(b) })
		case "id":
			sortArr(doc.Get("backlog"), backlogIDLess)
		}
	case triad.Agent:
		sortArr(doc.Get("links"), linkLess)
		if ext := doc.Get("extensions"); ext != nil {
			modes := ext.Get("operationModes")
			if modes != nil && modes.Kind == triad.Array && allStrings(modes) {
				sortArr(modes, func(a, b *triad.Value) bool { return strings.ToLower(a.Text) < strings.ToLower(b.Text) })
			}
		}
	}
	return changed
}

// itemStr is the string of an array item: the item itself, or its key.
func itemStr(v *triad.Value, key string) (string, bool) {
	if v.Kind == triad.String && key == "title" {
		return v.Text, true
	}
	if m := v.Get(key); m != nil && m.Kind == triad.String {
		return m.Text, true
	}
	return "", false
}

func lowerTitle(v *triad.Value) string {
	s, _ := itemStr(v, "title")
	return strings.ToLower(s)
}

func statusBucket(v *triad.Value) int {
	s, _ := itemStr(v, "status")
	switch strings.ToLower(s) {
	case "planned":
		return 0
	case "in-progress":
		return 1
	case "at-risk":
		return 2
	case "done":
		return 3
	case "dropped":
		return 5
	}
	return 4
}

func dueTime(v *triad.Value) (time.Time, bool) {
	s, _ := itemStr(v, "due")
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func milestoneLess(a, b *triad.Value) bool {
	if ba, bb := statusBucket(a), statusBucket(b); ba != bb {
		return ba < bb
	}
	da, oka := dueTime(a)
	db, okb := dueTime(b)
	switch {
	case oka && !okb:
		return true
	case !oka && okb:
		return false
	case oka && okb && !da.Equal(db):
		return da.Before(db)
	}
	return lowerTitle(a) < lowerTitle(b)
}

func backlogIDLess(a, b *triad.Value) bool {
	sa, oka := itemStr(a, "slug")
	sb, okb := itemStr(b, "slug")
	switch {
	case oka && !okb:
		return true
	case !oka && okb:
		return false
	case oka && okb && sa != sb:
		return sa < sb
	}
	return lowerTitle(a) < lowerTitle(b)
}

// lessMissingLast orders present strings first, case-insensitively; ok
// reports whether the pair is decided.
func lessMissingLast(a string, oka bool, b string, okb bool) (less, ok bool) {
	switch {
	case oka && !okb:
		return true, true
	case !oka && okb:
		return false, true
	case oka && okb && strings.ToLower(a) != strings.ToLower(b):
		return strings.ToLower(a) < strings.ToLower(b), true
	}
	return false, false
}

func linkLess(a, b *triad.Value) bool {
	ta, oka := itemStr(a, "title")
	tb, okb := itemStr(b, "title")
	if less, ok := lessMissingLast(ta, oka, tb, okb); ok {
		return less
	}
	ua, oka := itemStr(a, "url")
	ub, okb := itemStr(b, "url")
	less, _ := lessMissingLast(ua, oka, ub, okb)
	return less
}

func allStrings(a *triad.Value) bool {
	for _, it := range a.Items {
		if it.Kind != triad.String {
			return false
		}
	}
	return true
}
