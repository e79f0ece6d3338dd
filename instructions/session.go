package instructions

import (
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Options are what a session depends on besides its saved state.
type Options struct {
	Config Config
	// Cwd is the working directory (absolute; kept logical). Relative
	// targets are made absolute against it.
	Cwd string
	// Home ends the marker search when Config.Root.StopAtFsRoot is false.
	Home string
	// FS is the filesystem; nil means [OS].
	FS FS
	// Preloaded, when set, names the files of the initial chain the agent's
	// harness already put in the model's context by itself: they are loaded
	// and registered like the others (a resolve does not report them), but
	// their bodies are left out of [Initial.Text], so no body reaches the
	// model twice.
	Preloaded func(path string) bool
	// PreloadedImports says the harness follows the @imports of the files
	// it loads itself (Claude Code, Gemini CLI do; Codex does not): a file
	// imported by a preloaded one is preloaded too.
	PreloadedImports bool
	// Tokens, when set, counts each loaded file's tokens and the initial
	// block's (Initial.Tokens, ChainDir.Tokens). nil counts nothing, unless
	// Config.Initial.BudgetTokens is set (then [DefaultTokenCounter]).
	Tokens TokenCounter
}

// Session is the set of AGENTS.md files an agent has been given: the
// initial chain plus everything resolve reported since. It is safe for
// concurrent use; under concurrent calls each file is reported once.
type Session struct {
	fsys FS
	cfg  Config
	// base makes relative targets absolute.
	base string

	mu      sync.Mutex
	root    Root
	cwd     string
	markers []string
	known   map[string]known
	byID    map[fsx.FileID]string
	covered map[string]struct{}
	// idsPending: some known files came from a saved state, which does not
	// record identities; they are looked up once when first needed.
	idsPending bool
	// imports maps a known file to the paths it imports (see chain).
	imports map[string][]string
	// rules are the rules with "paths:", delivered when a target matches.
	rules []rule

	home     string
	excludes []glob
	allowed  []string
}

type known struct {
	v     version
	id    fsx.FileID
	hasID bool
}

// Initial is the result of the initial load.
type Initial struct {
	Root        string   `json:"root"`
	RootSource  string   `json:"rootSource"`
	Markers     []string `json:"markers"`
	Files       []File   `json:"files"`
	CoveredDirs []string `json:"coveredDirs"`
	// Text is the <agents_context scope="initial"> block, "" when empty.
	Text string `json:"text"`
	// Parts are Text's pieces, file by file (see [TextPart]).
	Parts []TextPart `json:"-"`
	// Tokens is the sum of the loaded files' Tokens (their content in
	// TokenEncoding; the block adds a header line per file and its tags),
	// set only when the load counted tokens (Options.Tokens).
	Tokens        int    `json:"tokens,omitzero"`
	TokenEncoding string `json:"tokenEncoding,omitzero"`
	// Dirs is what became of each directory of the chain.
	Dirs     []ChainDir `json:"-"`
	Warnings []string   `json:"-"`
}

func newSession(opts Options, root Root, cwd string, markers []string) *Session {
	base := opts.Cwd
	if base == "" {
		base = cwd
	}
	return &Session{
		fsys: orOS(opts.FS), cfg: opts.Config, base: filepath.Clean(base),
		root: root, cwd: cwd, markers: clone(markers),
		known: map[string]known{}, byID: map[fsx.FileID]string{}, covered: map[string]struct{}{},
		imports: map[string][]string{}, home: opts.Home,
		excludes: compileExcludes(opts.Config.Excludes, opts.Home), allowed: allowedRoots(opts.Config, root.Dir, opts.Home),
	}
}

// Start estimates the root and loads the initial chain from the root down
// to opts.Cwd. Files cut by a cap are not registered: resolve reports them
// later as new.
func Start(opts Options) (*Session, Initial) {
	cwd := filepath.Clean(opts.Cwd)
	root := EstimateRoot(opts.FS, opts.Config.Root, cwd, opts.Home)
	s := newSession(opts, root, cwd, opts.Config.Root.Markers)
	in := Initial{Root: root.Dir, RootSource: root.Source, Markers: clone(s.markers)}
	if !opts.Config.Enabled {
		in.Files, in.CoveredDirs = []File{}, []string{}
		return s, in
	}
	counter := opts.counter()
	c := loadChain(s.fsys, chainDirs(root.Dir, cwd), opts.Config, counter, root.Dir, opts.Home)
	s.imports, s.rules = c.imports, c.rules
	for _, f := range c.loaded {
		s.register(f.path, known{v: f.v, id: f.id, hasID: f.hasID})
		file := newFile(f.path, f.v, "")
		file.Tokens, file.Kind, file.ImportedBy = f.tokens, f.kind, f.importedBy
		in.Files = append(in.Files, file)
	}
	if in.Files == nil {
		in.Files = []File{}
	}
	in.CoveredDirs = s.coveredDirs()
	in.Text, in.Parts = renderInitial(c.loaded, opts.preloaded(c.loaded))
	in.Dirs, in.Warnings = c.dirs, c.warnings
	if counter != nil {
		in.Tokens, in.TokenEncoding = sumTokens(c.loaded), counter.Encoding()
		if w := budgetWarning(opts.Config, in.Tokens, in.TokenEncoding); w != "" {
			in.Warnings = append(in.Warnings, w)
		}
	}
	return s, in
}

// Root returns the session's root.
func (s *Session) Root() Root {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.root
}

func (s *Session) register(path string, k known) {
	if old, ok := s.known[path]; ok && old.hasID && s.byID[old.id] == path {
		delete(s.byID, old.id)
	}
	s.known[path] = k
	if k.hasID {
		s.byID[k.id] = path
	}
	s.covered[filepath.Dir(path)] = struct{}{}
}

func (s *Session) forget(path string) {
	k, ok := s.known[path]
	if !ok {
		return
	}
	delete(s.known, path)
	if k.hasID && s.byID[k.id] == path {
		delete(s.byID, k.id)
	}
}

func (s *Session) coveredDirs() []string {
	out := make([]string, 0, len(s.covered))
	for d := range s.covered {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// fillIDs looks up the identity of known files restored from a saved
// state; files that no longer exist are forgotten.
func (s *Session) fillIDs() {
	if !s.idsPending {
		return
	}
	s.idsPending = false
	for p, k := range s.known {
		if k.hasID {
			continue
		}
		d := statFile(s.fsys, p)
		if d.status != statusFound {
			s.forget(p)
			continue
		}
		if id, ok := d.id(); ok {
			k.id, k.hasID = id, true
			s.known[p] = k
			if _, taken := s.byID[id]; !taken {
				s.byID[id] = p
			}
		}
	}
}

// preloaded is opts.Preloaded, extended to the imports of preloaded files
// when the harness follows imports itself.
func (opts Options) preloaded(loaded []loadedFile) func(string) bool {
	pre := opts.Preloaded
	if pre == nil || !opts.PreloadedImports {
		return pre
	}
	importer := map[string]string{}
	for _, f := range loaded {
		if f.importedBy != "" {
			importer[f.path] = f.importedBy
		}
	}
	return func(p string) bool {
		// Each loaded import has one importer and cycles are never loaded,
		// so the climb ends; len(importer) bounds it all the same.
		for range len(importer) + 1 {
			if pre(p) {
				return true
			}
			up, ok := importer[p]
			if !ok {
				return false
			}
			p = up
		}
		return false
	}
}
