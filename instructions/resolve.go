package instructions

import (
	"path/filepath"

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
	abs := fsx.Abs(s.base, target)
	res := Resolution{TargetPath: target, ResolvedPath: abs, Files: []File{}}
	if fi, err := s.fsys.Stat(abs); err != nil || !fi.IsDir() {
		res.ResolvedPath = filepath.Dir(abs)
	}
	root := s.Root().Dir
	if !within(root, abs) {
		return res
	}
	if !s.cfg.Enabled || !s.cfg.Resolver.Enabled {
		return res
	}
	dirs := chainDirs(root, res.ResolvedPath)
	if len(dirs) == 0 {
		return res
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res.Files = s.resolveDirs(dirs)
	return res
}

// resolveDirs runs under s.mu.
func (s *Session) resolveDirs(dirs []string) []File {
	type candidate struct {
		path   string
		k      known
		reason string
	}
	var found []candidate
	inCall := map[fsx.FileID]bool{}
	for _, dir := range dirs {
		d := findFile(s.fsys, dir, s.cfg.FileNames, s.forget)
		if d.status != statusFound {
			continue
		}
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
		if reason == "" || (k.hasID && inCall[k.id]) {
			continue
		}
		if k.hasID {
			inCall[k.id] = true
		}
		found = append(found, candidate{d.path, k, reason})
		if len(found) == s.cfg.Resolver.MaxFilesPerResolve {
			break
		}
	}
	out := make([]File, 0, len(found))
	for _, c := range found {
		s.register(c.path, c.k)
		out = append(out, newFile(c.path, c.k.v, c.reason))
	}
	return out
}
