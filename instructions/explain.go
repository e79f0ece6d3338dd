package instructions

import (
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Explanation says how the root was chosen and what became of every
// directory of the chain.
type Explanation struct {
	Enabled    bool     `json:"enabled"`
	Root       string   `json:"root"`
	RootSource string   `json:"rootSource"`
	Markers    []string `json:"markers"`
	Cwd        string   `json:"cwd"`
	// Target and TargetDir are set when a target was given: the chain then
	// runs to TargetDir instead of Cwd.
	Target    string     `json:"target,omitzero"`
	TargetDir string     `json:"targetDir,omitzero"`
	Dirs      []ChainDir `json:"dirs"`
	// Tokens is the sum of the loaded files' tokens (each in Dirs), when
	// opts.Tokens was set.
	Tokens        int      `json:"tokens,omitzero"`
	TokenEncoding string   `json:"tokenEncoding,omitzero"`
	Warnings      []string `json:"-"`
}

// Explain walks the chain from the root to opts.Cwd, or to target's
// directory when target is not empty, with the initial load's rules and
// caps, and reports each directory's status. A chain end outside the root
// is a single outside-root entry.
func Explain(opts Options, target string) Explanation {
	fsys := orOS(opts.FS)
	cwd := filepath.Clean(opts.Cwd)
	root := EstimateRoot(fsys, opts.Config.Root, cwd, opts.Home)
	e := Explanation{Enabled: opts.Config.Enabled, Root: root.Dir, RootSource: root.Source,
		Markers: clone(opts.Config.Root.Markers), Cwd: cwd, Dirs: []ChainDir{}}
	if e.Markers == nil {
		e.Markers = []string{}
	}
	end := cwd
	if target != "" {
		abs := fsx.Abs(cwd, target)
		end = abs
		if fi, err := fsys.Stat(abs); err != nil || !fi.IsDir() {
			end = filepath.Dir(abs)
		}
		e.Target, e.TargetDir = abs, end
	}
	if !e.Enabled {
		return e
	}
	dirs := chainDirs(root.Dir, end)
	if dirs == nil {
		e.Dirs = append(e.Dirs, ChainDir{Dir: end, Status: StatusOutsideRoot})
		return e
	}
	counter := opts.counter()
	c := loadChain(fsys, dirs, opts.Config, counter, root.Dir, opts.Home)
	e.Dirs, e.Warnings = c.dirs, c.warnings
	if e.Target != "" {
		for _, r := range c.rules {
			if !r.matches(e.Target) {
				continue
			}
			for i, d := range e.Dirs {
				if d.Kind == KindRule && d.Path == r.path {
					e.Dirs[i].Detail += "; matches the target"
				}
			}
		}
	}
	if counter != nil {
		e.Tokens, e.TokenEncoding = sumTokens(c.loaded), counter.Encoding()
		if w := budgetWarning(opts.Config, e.Tokens, e.TokenEncoding); w != "" {
			e.Warnings = append(e.Warnings, w)
		}
	}
	return e
}

// Findings are the directories --strict fails on: skipped by a cap or
// unreadable.
func (e Explanation) Findings() []ChainDir {
	var out []ChainDir
	for _, d := range e.Dirs {
		switch d.Status {
		case StatusMaxFiles, StatusMaxBytes, StatusUnreadable:
			out = append(out, d)
		}
	}
	return out
}
