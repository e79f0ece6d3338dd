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

// Scope says where a skill folder comes from.
type Scope string

// The scopes, nearest first.
const (
	ScopeProject Scope = "project" // a directory from the root down to cwd
	ScopeExtra   Scope = "extra"   // a configured folder
	ScopeUser    Scope = "user"    // the user's folders (opt in)
)

// DefaultProjectFolders are the skill folders looked for in every directory
// from the project root down to the working directory, nearest kind first:
// the cross-client .agents/skills (Codelia, Codex, Gemini CLI, opencode),
// then Claude Code's, Codex's older, Gemini CLI's, opencode's and GitHub
// Copilot's own.
var DefaultProjectFolders = []string{".agents/skills", ".claude/skills", ".codex/skills", ".gemini/skills", ".opencode/skills", ".github/skills"}

// DefaultUserFolders are the user-level skill folders, relative to home,
// looked in only when [Options.User] is set.
var DefaultUserFolders = []string{".agents/skills", ".claude/skills", ".codex/skills", ".gemini/skills", ".config/opencode/skills", ".copilot/skills"}

// Limits of a discovery.
const (
	// MaxDepth is how many directories below a skill folder a SKILL.md
	// may be (folder/name/SKILL.md is depth 1).
	MaxDepth = 6
	// DefaultMaxSkills bounds the SKILL.md files read in one discovery.
	DefaultMaxSkills = 2000
	// DefaultMaxDirs bounds the directories listed in one discovery.
	DefaultMaxDirs = 10000
	// DefaultMaxFileBytes is the largest SKILL.md or resource read (as
	// Codelia's resolver: 512 KiB).
	DefaultMaxFileBytes = 512 << 10
)

// SkillFile is the file name that makes a directory a skill.
const SkillFile = "SKILL.md"

// Options say where to look and how.
type Options struct {
	// Cwd is the working directory (absolute); Home the user's home.
	Cwd, Home string
	// Root says how the project root is found (the instructions' rules:
	// CODELIA_AGENTS_ROOT, markers).
	Root instructions.RootConfig
	// ProjectFolders and UserFolders replace the defaults when not nil.
	ProjectFolders, UserFolders []string
	// Extra are more skill folders (absolute), after the project's.
	Extra []string
	// User adds the user's folders (after project and extra ones).
	User bool
	// Limits; zero means the default.
	MaxSkills, MaxDirs int
	MaxFileBytes       int64
	// Tokens counts body tokens; nil means o200k_base.
	Tokens tokens.Counter
	// CacheDir, when set, is a directory of metadata files, one per
	// project root (see [CacheFile]), that keep each SKILL.md's metadata
	// and body token count by (path, mtime, size), so a listing does not
	// parse and count what did not change, and reads only its own
	// project's entries.
	CacheDir string
	// Trail, when set, notes every path the discovery looks at (see
	// [fsx.Trail]): a caller keeping the catalog's block reuses it while
	// the trail is fresh.
	Trail *fsx.Trail
}

// Folder is one skill folder that exists.
type Folder struct {
	Dir   string `json:"dir"`
	Kind  string `json:"kind"` // ".claude/skills", … or "extra"
	Scope Scope  `json:"scope"`

	base *base
	rel  string   // Dir relative to base.dir, slash-separated
	sub  *os.Root // Dir itself, open while it is walked
	top  *os.File // Dir's directory, open while it is walked
}

// base is one directory opened as an os.Root, which every file under it is
// opened through.
type base struct {
	dir  string
	root *os.Root
	// trail notes the paths looked at under dir (nil: none).
	trail *fsx.Trail
}

// Skill is one skill of the catalog.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the SKILL.md (absolute), Dir its folder.
	Path string `json:"path"`
	Dir  string `json:"dir"`
	// Folder is the skill folder it was found in, Kind that folder's kind.
	Folder     string `json:"folder"`
	Kind       string `json:"kind"`
	Scope      Scope  `json:"scope"`
	BodyTokens int    `json:"bodyTokens"`
	MtimeNs    int64  `json:"mtimeNs"`
	Size       int64  `json:"size"`
	// ShadowedBy is the SKILL.md of the nearer skill of the same name, for
	// an entry of [Catalog.Shadowed].
	ShadowedBy string `json:"shadowedBy,omitzero"`

	rank int
	base *base
	rel  string // the skill folder relative to base.dir
}

// Problem is something wrong with one file: a skill the catalog skipped,
// or a finding of [Lint]. Line is 1-based, 0 when no line applies; Field
// names the front matter key.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitzero"`
	Field   string `json:"field,omitzero"`
	Message string `json:"message"`
}

// String is "PATH:LINE: FIELD: MESSAGE", leaving out what is not set.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(fsx.LineSafe(p.Path))
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(fsx.LineSafe(p.Message))
	return b.String()
}

// Catalog is the result of a discovery.
type Catalog struct {
	Root     instructions.Root `json:"root"`
	Cwd      string            `json:"cwd"`
	Folders  []Folder          `json:"folders"`
	Skills   []Skill           `json:"skills"`
	Shadowed []Skill           `json:"shadowed"`
	// Problems are the SKILL.md files and entries that were skipped, and
	// the warnings of skills loaded anyway.
	Problems []Problem `json:"problems"`
	// Files counts the SKILL.md files looked at, listed or not.
	Files int `json:"files"`
	// Truncated: a limit stopped the discovery early.
	Truncated bool `json:"truncated,omitzero"`

	bases    []*base
	maxBytes int64
}

// Close releases the open directories. A catalog is usable for loading
// until then.
func (c *Catalog) Close() error {
	var errs []error
	for _, b := range c.bases {
		errs = append(errs, b.root.Close())
	}
	c.bases = nil
	return errors.Join(errs...)
}

// Find returns the catalog's skill called name.
func (c *Catalog) Find(name string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(c.Skills, name, func(s Skill, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return Skill{}, false
	}
	return c.Skills[i], true
}

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

// stat is Stat of rel (relative to the folder) through the folder's own
// root, and through the wider root it lies in when that says the path
// leaves the folder: a link from .claude/skills into .agents/skills stays
// inside the project. Asking the folder first is only cheaper (one
// directory to walk instead of the whole path), never wider.
func (f Folder) stat(rel string) (fs.FileInfo, error) {
	if f.base.trail != nil {
		f.base.trail.Note(f.abs(rel))
	}
	fi, err := f.sub.Stat(rel)
	if err != nil && escapes(err) {
		return f.base.root.Stat(path.Join(f.rel, rel))
	}
	return fi, err
}

func (f Folder) read(rel string, limit int64) ([]byte, fs.FileInfo, error) {
	if f.base.trail != nil {
		f.base.trail.Note(f.abs(rel))
	}
	data, fi, err := fsx.ReadRegularIn(f.sub, rel, limit)
	if err != nil && escapes(err) {
		return fsx.ReadRegularIn(f.base.root, path.Join(f.rel, rel), limit)
	}
	return data, fi, err
}

func (f Folder) abs(rel string) string { return f.base.abs(joinName(f.rel, rel)) }

// joinName is path.Join(dir, rel) for a clean slash-separated dir ("."
// at the top) and a clean relative rel (names from a directory listing,
// joined): the listing's hot path, without Join's cleaning.
func joinName(dir, rel string) string {
	switch {
	case rel == "." || rel == "":
		return dir
	case dir == "." || dir == "":
		return rel
	}
	return dir + "/" + rel
}

func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
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

// abs is the absolute path of rel (slash-separated, relative to b.dir).
func (b *base) abs(rel string) string {
	if rel == "." || rel == "" {
		return b.dir
	}
	return filepath.Join(b.dir, filepath.FromSlash(rel))
}

// describe words an error of a lookup under the root dir.
func describe(err error, dir string) string {
	var nr *fsx.NotRegularError
	switch {
	case errors.As(err, &nr):
		return fmt.Sprintf("is a %s, not a regular file: skipped", nr.Kind)
	case errors.Is(err, fsx.ErrTooLarge):
		msg := err.Error()
		if i := strings.Index(msg, fsx.ErrTooLarge.Error()); i >= 0 {
			msg = msg[i:]
		}
		return msg + ": skipped"
	case strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Sprintf("a symbolic link leads outside %s: not followed", fsx.LineSafe(dir))
	case fsx.IsSymlinkLoop(err):
		return "a symbolic link loop: not followed"
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist (a dangling symbolic link?)"
	}
	return unwrapPath(err).Error()
}

// unwrapPath drops the *PathError's operation and path, which the message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkRefs reports the body's references to files of the skill folder
// (dir, under b) that do not exist or are not inside it.
func checkRefs(b *base, dir, file string, doc *doc) []Problem {
	refs := references(doc.rawBody, doc.bodyLine)
	if len(refs) == 0 {
		return nil
	}
	r, err := b.root.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []Problem
	for _, ref := range refs {
		if b.trail != nil {
			b.trail.Note(filepath.Join(b.abs(dir), filepath.FromSlash(ref.target)))
		}
		_, err := r.Stat(ref.target)
		switch {
		case err == nil:
			continue
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Problem{Path: file, Line: ref.line, Message: fmt.Sprintf("references %s, which does not exist in the skill folder", ref.target)})
		case strings.Contains(err.Error(), "path escapes from parent"):
			out = append(out, Problem{Path: file, Line: ref.line, Message: fmt.Sprintf("references %s, which is outside the skill folder", ref.target)})
		}
	}
	return out
}
