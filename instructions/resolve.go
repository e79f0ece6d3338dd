package instructions

import (
	"io"
	"path/filepath"
	"slices"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Reasons a resolve reports a file.
const (
	ReasonNew     = "new"
	ReasonUpdated = "updated"
)

// Resolution is the result of one [Session.Resolve].
type Resolution struct {
	// TargetPath is the target as given.
	TargetPath string `json:"targetPath"`
	// ResolvedPath is the directory whose chain was resolved: the absolute,
	// clean target if it is an existing directory, else its parent.
	ResolvedPath string `json:"resolvedPath"`
	// Files are ordered root to leaf.
	Files []File `json:"files"`
}

// Resolve reports the AGENTS.md files that apply to target and that the
// session does not know yet (new) or knows in another version (updated),
// root to leaf, at most Resolver.MaxFilesPerResolve; the rest come on later
// calls. Every reported file is registered at once. A target outside the
// root gives an empty result. Cost: one Lstat per directory from the root to
// the target per file name tried (plus a Stat for a symlink and one for
// the target itself); no directory is listed and markers are not searched.
func (s *Session) Resolve(target string) Resolution {
	res, _ := s.ResolveIf(target, nil)
	return res
}

// ResolveIf is [Session.Resolve] that registers the files only if accept
// (nil accepts all) takes the resolution; it reports whether it did. A
// caller that must keep its answer under a size limit resolves a target,
// measures, and refuses it to leave it for a later call: the session then
// reports the same files again. (Files found missing are forgotten, and a
// reported file's imports re-read, either way: both describe the files as
// they are.) accept runs with the session locked and must not call it.
func (s *Session) ResolveIf(target string, accept func(Resolution) bool) (Resolution, bool) {
	abs := fsx.Abs(s.base, target)
	res := Resolution{TargetPath: target, ResolvedPath: abs, Files: []File{}}
	if fi, err := s.fsys.Stat(abs); err != nil || !fi.IsDir() {
		res.ResolvedPath = filepath.Dir(abs)
	}
	root := s.Root().Dir
	var dirs []string
	if within(root, abs) && s.cfg.Enabled && s.cfg.Resolver.Enabled {
		dirs = chainDirs(root, res.ResolvedPath)
	}
	if len(dirs) == 0 {
		return res, accept == nil || accept(res)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found := s.resolveDirs(dirs, abs)
	for _, c := range found {
		f := newFile(c.path, c.k.v, c.reason)
		f.ImportedBy = c.importedBy
		res.Files = append(res.Files, f)
	}
	if accept != nil && !accept(res) {
		return res, false
	}
	for _, c := range found {
		s.register(c.path, c.k)
	}
	return res, true
}

// resolver gathers one resolve call's files: root to leaf, each followed
// by its imports; then the rules whose paths match the target.
type resolver struct {
	s      *Session
	found  []candidate
	inCall map[fsx.FileID]bool
	seen   map[string]bool // import paths walked in this call
}

type candidate struct {
	path       string
	k          known
	reason     string
	importedBy string
}

func (r *resolver) full() bool { return len(r.found) >= r.s.cfg.Resolver.MaxFilesPerResolve }

// judge returns why the found file d is reported ("" when it is not).
func (r *resolver) judge(d dirFile) (known, string) {
	s := r.s
	k := known{v: d.version()}
	k.id, k.hasID = d.id()
	reason := ""
	if old, ok := s.known[d.path]; ok {
		if old.v != k.v || (old.hasID && k.hasID && old.id != k.id) {
			reason = ReasonUpdated
		}
	} else {
		reason = ReasonNew
		if k.hasID {
			s.fillIDs()
			if other, dup := s.byID[k.id]; dup && other != d.path {
				reason = ""
			}
		}
	}
	if reason != "" && k.hasID && r.inCall[k.id] {
		reason = ""
	}
	if matchExcludes(s.excludes, s.root.Dir, d.path) != "" {
		reason = ""
	}
	return k, reason
}

// take judges the found file d and reports it when new or updated; then
// its imports are looked at: re-read when the file is reported, walked as
// known otherwise.
func (r *resolver) take(d dirFile, importedBy string, depth int) {
	if r.full() {
		return
	}
	k, reason := r.judge(d)
	if reason != "" {
		if k.hasID {
			r.inCall[k.id] = true
		}
		r.found = append(r.found, candidate{d.path, k, reason, importedBy})
		if r.s.cfg.Imports.Enabled {
			r.rescan(d.path, depth)
		}
	}
	if r.s.cfg.Imports.Enabled {
		r.walk(d.path, depth)
	}
}

// rescan reads a reported file again for its imports.
func (r *resolver) rescan(p string, depth int) {
	s := r.s
	budget := max(s.cfg.Initial.MaxBytes, maxRuleBytes)
	var fc fileContent
	var err error
	if depth == 0 {
		fc, err = readContent(s.fsys, p, budget)
	} else {
		var rc io.ReadCloser
		if rc, err = openConfined(s.fsys, p, s.allowed); err == nil {
			fc, err = readFrom(rc, p, budget)
		}
	}
	if err != nil {
		return
	}
	var paths []string
	for _, ref := range ScanImports(fc.text) {
		t := resolveImport(ref, p, depth+1, s.cfg, s.home, s.allowed)
		if t.status == statusFound && !slices.Contains(paths, t.path) {
			paths = append(paths, t.path)
		}
	}
	if paths == nil {
		delete(s.imports, p)
		return
	}
	s.imports[p] = paths
}

// walk looks at the imports of p: new or changed ones are reported.
func (r *resolver) walk(p string, depth int) {
	s := r.s
	for _, ip := range s.imports[p] {
		if r.full() || depth+1 > s.cfg.Imports.MaxDepth {
			return
		}
		if r.seen[ip] {
			continue
		}
		r.seen[ip] = true
		d := statFile(s.fsys, ip)
		if d.status != statusFound {
			s.forget(ip)
			continue
		}
		if _, known := s.known[ip]; !known && !r.confined(ip) {
			continue
		}
		r.take(d, p, depth+1)
	}
}

// confined reports whether the import at p may be reported: its real path
// lies under an allowed root (checked by opening it there).
func (r *resolver) confined(p string) bool {
	if r.s.cfg.Imports.AllowOutsideRoot {
		return true
	}
	rc, err := openConfined(r.s.fsys, p, r.s.allowed)
	if err != nil {
		return false
	}
	rc.Close()
	return true
}

// resolveDirs runs under s.mu.
func (s *Session) resolveDirs(dirs []string, target string) []candidate {
	r := &resolver{s: s, inCall: map[fsx.FileID]bool{}, seen: map[string]bool{}}
	for _, dir := range dirs {
		if r.full() {
			break
		}
		d := findFile(s.fsys, dir, s.cfg.FileNames, s.forget)
		if d.status != statusFound {
			continue
		}
		r.take(d, "", 0)
	}
	for _, rl := range s.rules {
		if r.full() {
			break
		}
		if !rl.matches(target) {
			continue
		}
		d := statFile(s.fsys, rl.path)
		if d.status != statusFound {
			s.forget(rl.path)
			continue
		}
		r.take(d, "", 0)
	}
	return r.found
}
