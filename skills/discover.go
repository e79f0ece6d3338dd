package skills

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
)

// discovery is the state of one Discover call.
type discovery struct {
	opts  Options
	cat   *Catalog
	found []Skill
	// SKILL.md files and folders already taken, by identity.
	skillIDs, folderIDs map[fsx.FileID]bool
	seen, folders       []fs.FileInfo
	dirs                int
	cache               *metaCache // nil without a cache
	counter             tokens.Counter
}

// Discover finds the skills for opts.Cwd. Problems with single files are
// in the catalog; an error is returned only when nothing can be looked at.
// Close the catalog when done with it.
func Discover(opts Options) (*Catalog, error) {
	if !filepath.IsAbs(opts.Cwd) {
		return nil, fmt.Errorf("skills: working directory must be absolute, got %q", opts.Cwd)
	}
	opts.Cwd = filepath.Clean(opts.Cwd)
	if opts.ProjectFolders == nil {
		opts.ProjectFolders = DefaultProjectFolders
	}
	if opts.UserFolders == nil {
		opts.UserFolders = DefaultUserFolders
	}
	if opts.MaxSkills <= 0 {
		opts.MaxSkills = DefaultMaxSkills
	}
	if opts.MaxDirs <= 0 {
		opts.MaxDirs = DefaultMaxDirs
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	fsys := instructions.OS
	if opts.Trail != nil {
		fsys = instructions.Traced(fsys, opts.Trail)
	}
	root := instructions.EstimateRoot(fsys, opts.Root, opts.Cwd, opts.Home)
	d := &discovery{opts: opts, cat: &Catalog{Root: root, Cwd: opts.Cwd, maxBytes: opts.MaxFileBytes}, counter: opts.Tokens}
	if opts.CacheDir != "" {
		// Read here, not beside the walk: a goroutine would start a thread,
		// which costs a short listing more than the overlap saves.
		d.cache = loadCache(CacheFile(opts.CacheDir, root.Dir))
		d.found = make([]Skill, 0, len(d.cache.list))
		d.skillIDs = make(map[fsx.FileID]bool, len(d.cache.list))
	}
	d.project(root.Dir)
	for _, dir := range opts.Extra {
		d.standalone(fsx.Abs(opts.Cwd, dir), "extra", ScopeExtra)
	}
	if opts.User && opts.Home != "" {
		for _, kind := range opts.UserFolders {
			d.standalone(filepath.Join(opts.Home, filepath.FromSlash(kind)), kind, ScopeUser)
		}
	}
	d.finish()
	if d.cache != nil {
		d.cache.save()
	}
	return d.cat, nil
}

// project looks in every directory from root down to cwd, nearest first.
func (d *discovery) project(rootDir string) {
	chain := fsx.Between(rootDir, d.opts.Cwd)
	if len(chain) == 0 {
		return
	}
	b := d.open(rootDir)
	if b == nil {
		return
	}
	for i := len(chain) - 1; i >= 0; i-- {
		rel, _ := filepath.Rel(rootDir, chain[i])
		for _, kind := range d.opts.ProjectFolders {
			d.folder(b, path.Join(filepath.ToSlash(rel), kind), kind, ScopeProject)
		}
	}
}

// standalone looks in one folder opened as its own root.
func (d *discovery) standalone(dir, kind string, scope Scope) {
	d.opts.Trail.Note(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return // missing folders are ignored, as the standard's clients do
	}
	if b := d.open(dir); b != nil {
		d.folder(b, ".", kind, scope)
	}
}

func (d *discovery) open(dir string) *base {
	d.opts.Trail.Note(dir)
	r, err := os.OpenRoot(dir)
	if err != nil {
		d.problem(dir, fmt.Sprintf("cannot open: %v", unwrapPath(err)))
		return nil
	}
	b := &base{dir: dir, root: r, trail: d.opts.Trail}
	d.cat.bases = append(d.cat.bases, b)
	return b
}

// folder walks one skill folder if it exists (a symbolic link to a folder
// inside the same root counts; the same folder reached twice is walked once).
func (d *discovery) folder(b *base, rel, kind string, scope Scope) {
	abs := b.abs(rel)
	b.trail.Note(abs)
	fi, err := b.root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		d.problem(abs, describe(err, b.dir))
		return
	case !fi.IsDir():
		return
	}
	if d.seenBefore(&d.folderIDs, &d.folders, abs, fi) {
		return
	}
	sub, err := b.root.OpenRoot(rel)
	if err != nil {
		d.problem(abs, describe(err, b.dir))
		return
	}
	defer sub.Close()
	f := Folder{Dir: abs, Kind: kind, Scope: scope, base: b, rel: rel, sub: sub}
	d.cat.Folders = append(d.cat.Folders, f)
	top, err := sub.Open(".")
	if err != nil {
		d.problem(abs, describe(err, b.dir))
		return
	}
	defer top.Close()
	ents, err := readDir(top)
	if err != nil {
		d.problem(abs, fmt.Sprintf("cannot list: %v", unwrapPath(err)))
		return
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	f.top = top
	if slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == SkillFile }) {
		d.problem(f.abs(SkillFile), "a SKILL.md directly in a skill folder is not a skill: give the skill a folder of its own")
	}
	d.walk(f, ".", ents, 0)
}

// walk looks at the directories among ents (the entries of dir, relative
// to the folder): one holding a SKILL.md is a skill; any other is listed
// and searched further down, to MaxDepth.
func (d *discovery) walk(f Folder, dir string, ents []fs.DirEntry, depth int) {
	for _, e := range ents {
		if d.dirs >= d.opts.MaxDirs || len(d.found) >= d.opts.MaxSkills {
			d.cat.Truncated = true
			return
		}
		name := e.Name()
		if name == ".git" || name == "node_modules" {
			continue
		}
		child := joinName(dir, name)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := f.stat(child)
			if err != nil {
				d.problem(f.abs(child), describe(err, f.base.dir))
				continue
			}
			isDir = fi.IsDir()
			if isDir && f.holds(dir, fi) {
				d.problem(f.abs(child), "a symbolic link to a folder that holds it (a loop): not followed")
				continue
			}
		}
		if !isDir {
			continue
		}
		if !utf8.ValidString(name) {
			d.problem(f.abs(child), "the name is not valid UTF-8: skipped")
			continue
		}
		d.dirs++
		skillPath := child + "/" + SkillFile
		var fi fs.FileInfo
		var err error
		if f.base.trail != nil {
			f.base.trail.Note(f.abs(skillPath))
		}
		if fast, ok := fastStat(f.top, skillPath); ok && depth == 0 && e.IsDir() {
			fi = fast
		} else {
			fi, err = f.stat(skillPath)
		}
		switch {
		case err == nil:
			d.skill(f, child, fi)
			continue
		case !errors.Is(err, fs.ErrNotExist):
			d.problem(f.abs(skillPath), describe(err, f.base.dir))
			continue
		}
		sub, ok := d.list(f, child)
		if !ok {
			continue
		}
		if slices.ContainsFunc(sub, func(e fs.DirEntry) bool { return e.Name() == SkillFile }) {
			d.problem(f.abs(skillPath), describe(err, f.base.dir)) // a dangling link
			continue
		}
		if depth+1 < MaxDepth {
			d.walk(f, child, sub, depth+1)
		}
	}
}

// list reads the entries of dir (relative to the folder), sorted by name.
func (d *discovery) list(f Folder, dir string) ([]fs.DirEntry, bool) {
	if f.base.trail != nil {
		f.base.trail.Note(f.abs(dir))
	}
	h, err := f.sub.Open(dir)
	if err != nil && escapes(err) {
		h, err = f.base.root.Open(path.Join(f.rel, dir))
	}
	if err != nil {
		d.problem(f.abs(dir), describe(err, f.base.dir))
		return nil, false
	}
	ents, err := h.ReadDir(-1)
	h.Close()
	if err != nil {
		d.problem(f.abs(dir), fmt.Sprintf("cannot list: %v", unwrapPath(err)))
		return nil, false
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, true
}

// seenBefore records fi's file and reports whether it was recorded already
// (by device and inode; os.SameFile where the platform has no identity).
func (d *discovery) seenBefore(ids *map[fsx.FileID]bool, others *[]fs.FileInfo, p string, fi fs.FileInfo) bool {
	if id, ok := fsx.IDOf(p, fi); ok {
		if *ids == nil {
			*ids = map[fsx.FileID]bool{}
		}
		if (*ids)[id] {
			return true
		}
		(*ids)[id] = true
		return false
	}
	for _, s := range *others {
		if os.SameFile(s, fi) {
			return true
		}
	}
	*others = append(*others, fi)
	return false
}

// skill takes the skill folder dir (relative to the folder) whose SKILL.md
// stats as fi: from the cache when its (mtime, size) are unchanged, else
// read, parsed, checked and counted.
func (d *discovery) skill(f Folder, dir string, fi fs.FileInfo) {
	rel := dir + "/" + SkillFile // dir is a child's name or path, never "."
	skillDir := f.abs(dir)
	abs := skillDir + string(filepath.Separator) + SkillFile
	if d.seenBefore(&d.skillIDs, &d.seen, abs, fi) {
		return // the same file through another folder or link
	}
	d.cat.Files++
	sk := Skill{Path: abs, Dir: skillDir, Folder: f.Dir, Kind: f.Kind, Scope: f.Scope, base: f.base, rel: joinName(f.rel, dir)}
	if d.cache != nil && fi.Mode().IsRegular() {
		if e, ok := d.cache.get(abs, fi, d.encoding()); ok {
			sk.Name, sk.Description, sk.BodyTokens, sk.MtimeNs, sk.Size = e.Name, e.Description, e.BodyTokens, e.MtimeNs, e.Size
			d.cat.Problems = append(d.cat.Problems, e.Warnings...)
			d.found = append(d.found, sk)
			return
		}
	}
	data, fi, err := f.read(rel, d.opts.MaxFileBytes)
	if err != nil {
		d.problem(abs, describe(err, f.base.dir))
		return
	}
	doc, probs := parse(abs, path.Base(sk.rel), data)
	if doc == nil {
		d.cat.Problems = append(d.cat.Problems, probs...)
		return
	}
	sk.Name, sk.Description = doc.name, doc.description
	sk.MtimeNs, sk.Size = fi.ModTime().UnixNano(), fi.Size()
	sk.BodyTokens = d.count(doc.body)
	probs = append(probs, checkRefs(f.base, sk.rel, abs, doc)...)
	d.cat.Problems = append(d.cat.Problems, probs...)
	if d.cache != nil {
		d.cache.put(cacheEntry{Path: abs, MtimeNs: sk.MtimeNs, Size: sk.Size, Encoding: d.encoding(), Name: sk.Name,
			Description: sk.Description, BodyTokens: sk.BodyTokens, Warnings: probs})
	}
	d.found = append(d.found, sk)
}

func (d *discovery) tokens() tokens.Counter {
	if d.counter == nil {
		d.counter, _ = tokens.Get(tokens.Default)
	}
	return d.counter
}

func (d *discovery) encoding() string {
	if d.opts.Tokens != nil {
		return d.opts.Tokens.Encoding()
	}
	return tokens.Default
}

func (d *discovery) count(body string) int { return d.tokens().Count(body) }

func (d *discovery) problem(p, msg string) {
	d.cat.Problems = append(d.cat.Problems, Problem{Path: p, Message: msg})
}

// finish ranks the skills found (the order they were found in is nearest
// first), keeps the nearest of each name and sorts everything for output.
func (d *discovery) finish() {
	for i := range d.found {
		d.found[i].rank = i
	}
	byName := make(map[string]int, len(d.found)) // name → index in Skills
	d.cat.Skills = make([]Skill, 0, len(d.found))
	for _, s := range d.found {
		if i, ok := byName[s.Name]; ok {
			s.ShadowedBy = d.cat.Skills[i].Path
			d.cat.Shadowed = append(d.cat.Shadowed, s)
			continue
		}
		byName[s.Name] = len(d.cat.Skills)
		d.cat.Skills = append(d.cat.Skills, s)
	}
	slices.SortFunc(d.cat.Skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(d.cat.Shadowed, func(a, b Skill) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.rank, b.rank))
	})
	slices.SortStableFunc(d.cat.Problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	d.cat.Problems = slices.Compact(d.cat.Problems)
}
