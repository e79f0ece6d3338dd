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
	// Skipped says why a document was left alone: a symbolic link is
	// never rewritten (the file it leads to may be outside the tree, or
	// shared); tidy the file it leads to instead.
	Skipped string `json:"skipped,omitempty"`
}

// tidyFile is one document tidyFiles selected: its path, the directory its
// writes must stay inside (the write root, or the --dir tree), and where
// it leads when it is a symbolic link.
type tidyFile struct {
	path, base, link string
}

// skippedLink is the TidyResult of a document that is a symbolic link.
func skippedLink(f tidyFile, k triad.DocKind) TidyResult {
	return TidyResult{File: f.path, Kind: string(k), Skipped: "a symbolic link (to " + f.link + "): not rewritten; tidy the file it leads to"}
}

// skipDirs are never walked by a --dir scan (CLIA's list).
var skipDirs = map[string]bool{".git": true, ".build": true, "DerivedData": true, "node_modules": true, ".generated": true}

// tidyDirs lists the directories t selects: the slug's context at the
// write root, or every directory under t.Dir but skipDirs; base is the
// directory writes are contained in.
func tidyDirs(opts Options, slug, dir string) (dirs []string, base string, err error) {
	switch {
	case (slug == "") == (dir == ""):
		return nil, "", fmt.Errorf("give exactly one of a slug or a directory")
	case slug != "":
		tg, err := ResolveTarget(opts.Agents, slug, opts.Scope, opts.AgentsDir)
		if err != nil {
			return nil, "", err
		}
		return []string{tg.Dir}, tg.Root, nil
	}
	root := fsx.Abs(opts.Agents.Path, dir)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("directory %s does not exist", root)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != root && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	return dirs, root, err
}

// tidyFiles lists the triad documents selected by t, sorted by path: each
// current or legacy name directly in a context directory.
func tidyFiles(opts Options, t Tidy) ([]tidyFile, error) {
	dirs, base, err := tidyDirs(opts, t.Slug, t.Dir)
	if err != nil {
		return nil, err
	}
	kinds := map[triad.DocKind]bool{}
	for _, k := range t.Kinds {
		kinds[k] = true
	}
	var files []tidyFile
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			k, _, ok := triad.Match(e.Name())
			if !ok || (len(kinds) > 0 && !kinds[k]) {
				continue
			}
			f := tidyFile{path: filepath.Join(d, e.Name()), base: base}
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				f.link, _ = os.Readlink(f.path)
			case !e.Type().IsRegular():
				continue
			}
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
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
		k, _, _ := triad.Match(filepath.Base(f.path))
		if f.link != "" {
			out = append(out, skippedLink(f, k))
			continue
		}
		r := TidyResult{File: f.path, Kind: string(k)}
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
// under the lock so a concurrent writer's change is not lost). The write
// goes through a handle on f's directory opened inside f.base (see
// openDir), and a killed writer's temporary files are removed under the
// lock.
func rewrite(ctx context.Context, tf tidyFile, write bool, edit func(*triad.Value) (bool, error)) (changed, written bool, err error) {
	f := tf.path
	var dir *os.Root
	apply := func() ([]byte, bool, os.FileMode, error) {
		var doc *triad.Value
		var layout triad.EncodeOptions
		var perm os.FileMode
		var err error
		if dir == nil {
			doc, layout, perm, err = readAgency(f)
		} else {
			doc, layout, perm, _, err = readAgencyIn(dir, filepath.Base(f), f)
		}
		if err != nil {
			return nil, false, 0, err
		}
		ch, err := edit(doc)
		if err != nil || !ch {
			return nil, false, perm, err
		}
		return triad.Encode(doc, layout), true, perm, nil
	}
	if _, changed, _, err = apply(); err != nil || !write {
		return changed, false, err
	}
	// With --write the lock is taken even for a document already tidy: it
	// removes what a killed run left.
	dir, unlock, err := lockTidy(ctx, tf)
	if err != nil {
		return true, false, err
	}
	defer unlock()
	data, changed, perm, err := apply()
	if err != nil || !changed {
		return changed, false, err
	}
	return true, true, fsx.WriteFileAtomicIn(dir, filepath.Base(f), data, perm)
}

// lockTidy opens the directory of tf through its base (see openDir), takes
// the directory's journal lock and removes the temporary files a killed
// normalize, migrate or journal left beside tf's document, its .bak and
// its migrated name. unlock releases the lock and closes the directory.
func lockTidy(ctx context.Context, tf tidyFile) (dir *os.Root, unlock func(), err error) {
	d := filepath.Dir(tf.path)
	if err := checkFile(d, tf.path); err != nil {
		return nil, nil, err
	}
	if dir, err = openDir(tf.base, d); err != nil {
		return nil, nil, err
	}
	if err := checkLock(d); err != nil {
		dir.Close()
		return nil, nil, err
	}
	lock, err := fsx.LockFileIn(ctx, dir, lockName)
	if err != nil {
		dir.Close()
		return nil, nil, err
	}
	name := filepath.Base(tf.path)
	for _, n := range []string{name, name + ".bak", strings.TrimSuffix(name, ".json") + ".triad.json"} {
		if err := fsx.RemoveStaleTempsIn(dir, n); err != nil {
			lock.Unlock()
			dir.Close()
			return nil, nil, err
		}
	}
	return dir, func() { lock.Unlock(); dir.Close() }, nil
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
