package instructions

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/fsx"
)

// File is an AGENTS.md reported by the initial load or a resolve. Bodies
// are never part of it.
type File struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: JSON shows Path
	// with U+FFFD replacements, and PathBytes (base64) keeps the bytes.
	PathBytes []byte `json:"pathBytes,omitzero"`
	MtimeMs   int64  `json:"mtimeMs"`
	SizeBytes int64  `json:"sizeBytes"`
	// Reason is "new" or "updated" in a resolve result, empty otherwise.
	Reason string `json:"reason,omitzero"`
	// Tokens is the file's content in tokens, set by a load that counts
	// tokens (Options.Tokens); never by a resolve.
	Tokens int `json:"tokens,omitzero"`
	// Kind is "" for a directory's own file, else "import", "rule" or
	// "global" (set by the initial load; a resolve gives ImportedBy).
	Kind string `json:"kind,omitzero"`
	// ImportedBy is the file that imports this one.
	ImportedBy string `json:"importedBy,omitzero"`
}

func newFile(path string, v version, reason string) File {
	return File{Path: path, PathBytes: invalidBytes(path), MtimeMs: v.mtimeMs(), SizeBytes: v.size, Reason: reason}
}

// invalidBytes returns p's bytes when p is not valid UTF-8, else nil: JSON
// strings replace such bytes, so they travel beside the string.
func invalidBytes(p string) []byte {
	if utf8.ValidString(p) {
		return nil
	}
	return []byte(p)
}

// ChainDir is one directory of a chain and what became of its file.
type ChainDir struct {
	Dir    string `json:"dir"`
	Status Status `json:"status"`
	// Path is the file that was found (or skipped) there, if any.
	Path string `json:"path,omitzero"`
	// PathBytes: see [File].
	PathBytes []byte `json:"pathBytes,omitzero"`
	Detail    string `json:"detail,omitzero"`
	MtimeMs   int64  `json:"mtimeMs,omitzero"`
	SizeBytes int64  `json:"sizeBytes,omitzero"`
	// ContentBytes is what the file adds to maxBytes: the UTF-8 bytes of its
	// content after trimming.
	ContentBytes int `json:"contentBytes,omitzero"`
	// Tokens is the loaded content in tokens, when the load counted them.
	Tokens int `json:"tokens,omitzero"`
	// Kind is "" for a directory's own file, else "import", "rule" or
	// "global".
	Kind string `json:"kind,omitzero"`
	// Import, ImportedBy, Line and Depth describe an import: the path as
	// written, the importing file, the line of the "@", and the hops from
	// a directory's (or rule's, or global) file.
	Import     string `json:"import,omitzero"`
	ImportedBy string `json:"importedBy,omitzero"`
	Line       int    `json:"line,omitzero"`
	Depth      int    `json:"depth,omitzero"`
}

// Kinds of files besides a directory's own (whose Kind is "").
const (
	KindImport = "import"
	KindRule   = "rule"
	KindGlobal = "global"
)

// loadedFile is a file the chain loaded.
type loadedFile struct {
	dir     string
	path    string
	v       version
	id      fsx.FileID
	hasID   bool
	content string
	tokens  int
	// importedBy is the importing file of an import.
	importedBy string
	kind       string
}

type chain struct {
	dirs     []ChainDir
	loaded   []loadedFile
	warnings []string
	// imports maps each loaded file to the paths it imports (resolvable and
	// allowed ones, found or not), in document order.
	imports map[string][]string
	// rules are the rules found that have "paths:" (delivered on touch).
	rules []rule
}

// capGroup is one set of caps: the project's (initial.*) or the global
// files' (globalMaxBytes).
type capGroup struct {
	key              string
	maxFiles         int // 0: no file cap
	maxBytes         int
	files, bytes     int
	stopped          Status
	stoppedDetailKey string
}

// loader loads a chain: global files, then each directory's file, then the
// rules without "paths:", each file followed by its imports (depth first,
// in document order), under the caps, in that order.
type loader struct {
	fsys     FS
	cfg      Config
	counter  TokenCounter
	home     string
	root     string
	excludes []glob
	allowed  []string
	seen     map[fsx.FileID]string
	c        chain
}

func newLoader(fsys FS, cfg Config, counter TokenCounter, root, home string) *loader {
	l := &loader{fsys: fsys, cfg: cfg, counter: counter, home: home, root: root,
		excludes: compileExcludes(cfg.Excludes, home), allowed: allowedRoots(cfg, root, home),
		seen: map[fsx.FileID]string{}}
	l.c.imports = map[string][]string{}
	return l
}

// loadChain loads the global files, the directories' files and the rules
// of dirs (see [loader]). At the first file that would exceed a cap
// loading stops: that file and every later one of its cap group get the
// cap's status and are not loaded.
func loadChain(fsys FS, dirs []string, cfg Config, counter TokenCounter, root, home string) chain {
	l := newLoader(fsys, cfg, counter, root, home)
	global := &capGroup{key: "globalMaxBytes", maxBytes: cfg.GlobalMaxBytes}
	for _, g := range cfg.GlobalFiles {
		p, ok := userPath(g, root, home)
		if !ok {
			l.c.dirs = append(l.c.dirs, ChainDir{Dir: g, Kind: KindGlobal, Status: StatusMissing, Detail: "no home directory"})
			continue
		}
		d := statFile(fsys, p)
		cd := ChainDir{Dir: filepath.Dir(p), Kind: KindGlobal, Status: d.status, Path: p, PathBytes: invalidBytes(p), Detail: d.detail}
		l.add(cd, d, global, 0, nil, append(clone(l.allowed), filepath.Dir(p)), nil)
	}
	project := &capGroup{key: "initial", maxFiles: cfg.Initial.MaxFiles, maxBytes: cfg.Initial.MaxBytes}
	for _, dir := range dirs {
		d := findFile(fsys, dir, cfg.FileNames, nil)
		cd := ChainDir{Dir: dir, Status: d.status, Path: d.path, PathBytes: invalidBytes(d.path), Detail: d.detail}
		l.add(cd, d, project, 0, nil, l.allowed, nil)
	}
	for _, r := range findRules(fsys, dirs, cfg) {
		cd := ChainDir{Dir: r.base, Kind: KindRule, Status: r.d.status, Path: r.path, PathBytes: invalidBytes(r.path), Detail: r.d.detail}
		switch {
		case r.d.status != statusFound:
		case r.err != nil:
			cd.Status, cd.Detail = StatusUnreadable, r.err.Error()
			l.c.warnings = append(l.c.warnings, fmt.Sprintf("%s: %v", fsx.LineSafe(r.path), r.err))
		case r.paths != nil:
			if glob := l.excluded(r.path); glob != "" {
				cd.Status, cd.Detail = StatusExcluded, glob
				break
			}
			v := r.d.version()
			cd.Status, cd.Detail = StatusScoped, r.key+": "+strings.Join(r.paths, ", ")
			cd.MtimeMs, cd.SizeBytes = v.mtimeMs(), v.size
			if len(r.paths) == 0 {
				// No globs and not always on: the harness's agent (Cursor)
				// or its user attaches it; it never loads by itself.
				cd.Detail = "alwaysApply: false, no globs: loaded only when asked for"
				break
			}
			l.c.rules = append(l.c.rules, r)
		default:
			body := r.body
			l.add(cd, r.d, project, 0, nil, l.allowed, &body)
			continue
		}
		l.c.dirs = append(l.c.dirs, cd)
	}
	if w := cutNotice(l.c.dirs); w != "" {
		l.c.warnings = append(l.c.warnings, w)
	}
	return l.c
}

// add judges one entry: when its file was found and loads, the entry is
// followed by its imports. body, when not nil, is the content already
// read (a rule's, without its front matter).
func (l *loader) add(cd ChainDir, d dirFile, g *capGroup, depth int, stack []fsx.FileID, allowed []string, body *string) {
	if d.status != statusFound {
		l.c.dirs = append(l.c.dirs, cd)
		return
	}
	v := d.version()
	cd.MtimeMs, cd.SizeBytes = v.mtimeMs(), v.size
	id, hasID := d.id()
	if glob := l.excluded(d.path); glob != "" {
		cd.Status, cd.Detail = StatusExcluded, glob
		l.c.dirs = append(l.c.dirs, cd)
		return
	}
	switch {
	case hasID && slices.Contains(stack, id):
		cd.Status, cd.Detail = StatusCycle, "imports a file that imports it; not followed"
	case g.stopped != "":
		cd.Status = g.stopped
	case hasID && l.seen[id] != "":
		cd.Status, cd.Detail = StatusDuplicate, "same file as "+l.seen[id]
	case g.maxFiles > 0 && g.files+1 > g.maxFiles:
		g.stopped, cd.Status = StatusMaxFiles, StatusMaxFiles
		cd.Detail = fmt.Sprintf("%s.maxFiles %d reached", g.key, g.maxFiles)
	default:
		budget := g.maxBytes - g.bytes
		var fc fileContent
		var err error
		if body != nil {
			fc = fileContent{text: *body, fits: len(*body) <= budget, known: true}
		} else {
			fc, err = l.read(cd.Kind, d.path, allowed, budget)
		}
		if err != nil {
			cd.Status, cd.Detail = StatusUnreadable, err.Error()
			if errors.Is(err, errEscapes) {
				cd.Status = StatusOutsideRoot
			}
			break
		}
		if fc.known {
			cd.ContentBytes = len(fc.text)
		}
		if !fc.fits {
			g.stopped, cd.Status = StatusMaxBytes, StatusMaxBytes
			key := g.key + ".maxBytes"
			if g.key == "globalMaxBytes" {
				key = g.key
			}
			cd.Detail = fmt.Sprintf("over the %d byte(s) left of %s %d", budget, key, g.maxBytes)
			break
		}
		if fc.warning != "" {
			l.c.warnings = append(l.c.warnings, fc.warning)
		}
		g.files++
		g.bytes += len(fc.text)
		cd.Status = StatusLoaded
		if fc.text == "" {
			cd.Status = StatusEmpty
		}
		if hasID {
			l.seen[id] = d.path
		}
		lf := loadedFile{dir: cd.Dir, path: d.path, v: v, id: id, hasID: hasID, content: fc.text, importedBy: cd.ImportedBy, kind: cd.Kind}
		if l.counter != nil {
			lf.tokens = l.counter.Count(fc.text)
			cd.Tokens = lf.tokens
		}
		l.c.loaded = append(l.c.loaded, lf)
		l.c.dirs = append(l.c.dirs, cd)
		if l.cfg.Imports.Enabled {
			if hasID {
				stack = append(slices.Clip(stack), id)
			}
			l.follow(fc.text, d.path, g, depth, stack, allowed)
		}
		return
	}
	l.c.dirs = append(l.c.dirs, cd)
}

// follow loads the imports of a loaded file, in document order.
func (l *loader) follow(content, importer string, g *capGroup, depth int, stack []fsx.FileID, allowed []string) {
	for _, ref := range ScanImports(content) {
		t := resolveImport(ref, importer, depth+1, l.cfg, l.home, allowed)
		cd := ChainDir{Dir: filepath.Dir(t.path), Kind: KindImport, Import: ref.Spec, ImportedBy: importer, Line: ref.Line,
			Depth: depth + 1, Path: t.path, PathBytes: invalidBytes(t.path), Status: t.status, Detail: t.detail}
		if t.path == "" {
			cd.Dir = ""
		}
		if t.status != statusFound {
			l.c.dirs = append(l.c.dirs, cd)
			continue
		}
		if !slices.Contains(l.c.imports[importer], t.path) {
			l.c.imports[importer] = append(l.c.imports[importer], t.path)
		}
		d := statFile(l.fsys, t.path)
		cd.Status, cd.Detail = d.status, d.detail
		l.add(cd, d, g, depth+1, stack, allowed, nil)
	}
}

// importTarget is where an import points and whether it may be followed:
// status statusFound means "look at the file".
type importTarget struct {
	path   string
	status Status
	detail string
}

func resolveImport(ref ImportRef, importer string, depth int, cfg Config, home string, allowed []string) importTarget {
	p, ok := importPath(ref.Spec, filepath.Dir(importer), home)
	if !ok {
		return importTarget{status: StatusMissing, detail: "no home directory for ~/"}
	}
	t := importTarget{path: p, status: statusFound}
	switch {
	case depth > cfg.Imports.MaxDepth:
		t.status, t.detail = StatusImportDepth, fmt.Sprintf("deeper than imports.maxDepth %d", cfg.Imports.MaxDepth)
	case !cfg.Imports.AllowOutsideRoot && !withinAny(allowed, p):
		t.status, t.detail = StatusOutsideRoot, "outside the project root and imports.allowedRoots"
	}
	return t
}

// read reads a file's content against budget. An import is opened through
// the allowed root that holds it ([RootOpener]), so a symlink cannot take
// it outside (errEscapes).
func (l *loader) read(kind, p string, allowed []string, budget int) (fileContent, error) {
	if kind != KindImport || l.cfg.Imports.AllowOutsideRoot {
		return readContent(l.fsys, p, budget)
	}
	r, err := openConfined(l.fsys, p, allowed)
	if err != nil {
		return fileContent{}, err
	}
	return readFrom(r, p, budget)
}

// excluded returns the exclude glob p matches, or "".
func (l *loader) excluded(p string) string { return matchExcludes(l.excludes, l.root, p) }

// cutNotice says which file a cap stopped the load at, why, and how many
// later files that left out, so an oversized file never hides the rest
// silently. "" when no cap was reached.
func cutNotice(dirs []ChainDir) string {
	for i, d := range dirs {
		if d.Status != StatusMaxBytes && d.Status != StatusMaxFiles {
			continue
		}
		later := 0
		for _, e := range dirs[i+1:] {
			if e.Status == d.Status {
				later++
			}
		}
		return fmt.Sprintf("%s: not loaded (%s: %s); %d later file(s) of the chain left out too (see 'lineage instructions explain')",
			fsx.LineSafe(d.Path), d.Status, d.Detail, later)
	}
	return ""
}

// TextPart is a piece of an initial block: the block is its parts' Text
// joined with nothing between them. A file's part (Path set) is its
// "Instructions from:" line, its content and the separator after it; the
// parts without a path are the block's frame. Callers that weigh the block
// file by file (token counts per file) use them.
type TextPart struct {
	Path string
	Text string
}

// renderInitial renders the <agents_context scope="initial"> block, or ""
// when no loaded file has content, and the parts it is made of. Files
// preloaded names are left out.
func renderInitial(files []loadedFile, preloaded func(string) bool) (string, []TextPart) {
	var parts []TextPart
	for _, f := range files {
		if f.content != "" && (preloaded == nil || !preloaded(f.path)) {
			parts = append(parts, TextPart{Path: f.path, Text: "Instructions from: " + fsx.LineSafe(f.path) + "\n" + f.content + "\n\n"})
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	last := &parts[len(parts)-1]
	last.Text = strings.TrimSuffix(last.Text, "\n")
	parts = append([]TextPart{{Text: "<agents_context scope=\"initial\">\n"}}, parts...)
	parts = append(parts, TextPart{Text: "</agents_context>"})
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), parts
}
