package instructions

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/internal/frontmatter"
)

// DirReader is what an [FS] implements to list a directory. Only rule
// folders are ever listed (see [Config.Rules]), once per initial load: no
// resolve lists anything. An FS without it finds no rules.
type DirReader interface {
	ReadDir(name string) ([]fs.DirEntry, error)
}

func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Bounds of a rule folder's listing and of one rule file.
const (
	maxRuleFiles = 1000
	maxRuleDepth = 8
	maxRuleBytes = 1 << 20
	// maxRuleAlternatives bounds the patterns one rule's paths stand for
	// once their braces are expanded: what matching a path costs.
	maxRuleAlternatives = 1024
)

// rule is one rule file found in a rule folder.
type rule struct {
	path string
	// base is the directory holding the rule folder: the rule's globs are
	// relative to it.
	base string
	// paths are the front matter's globs; nil: the rule loads with the
	// chain; empty: it never loads by itself (a Cursor rule the agent
	// asks for, or one only a user attaches).
	paths []string
	// key is the front matter key the globs came from (paths, globs,
	// applyTo).
	key   string
	globs []glob
	body  string
	d     dirFile
	err   error
}

// matches reports whether the absolute path p is in scope of r.
func (r rule) matches(p string) bool {
	rel, ok := relSlash(r.base, p)
	if !ok {
		return false
	}
	for _, g := range r.globs {
		if g.match(rel) {
			return true
		}
	}
	return false
}

// findRules lists the rule folders (cfg.Rules.Dirs) of each directory of
// dirs, recursively, and reads each ".md" file found there: rules sorted
// by path within each folder, folders in chain order. Symlinked files
// count; symlinked folders below a rule folder are not followed.
func findRules(fsys FS, dirs []string, cfg Config) []rule {
	lister, ok := fsys.(DirReader)
	if !ok || !cfg.Rules.Enabled {
		return nil
	}
	var out []rule
	for _, dir := range dirs {
		stamp := dirStamper(fsys, dir)
		for _, rd := range cfg.Rules.Dirs {
			top, ok := ruleFolder(fsys, dir, rd, stamp)
			if !ok {
				continue
			}
			var files []string
			listRules(lister, top, 0, &files)
			slices.Sort(files)
			for _, f := range files {
				out = append(out, readRule(fsys, dir, f))
			}
		}
	}
	return out
}

func listRules(l DirReader, dir string, depth int, out *[]string) {
	ents, err := l.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if len(*out) >= maxRuleFiles {
			return
		}
		p := joinName(dir, e.Name())
		switch {
		case e.IsDir():
			if depth < maxRuleDepth {
				listRules(l, p, depth+1, out)
			}
		case strings.HasSuffix(e.Name(), ".md"), strings.HasSuffix(e.Name(), ".mdc"):
			*out = append(*out, p)
		}
	}
}

// readRule reads a rule file and its front matter's "paths".
func readRule(fsys FS, base, p string) rule {
	r := rule{path: p, base: base, d: statFile(fsys, p)}
	if r.d.status != statusFound {
		return r
	}
	f, err := fsys.OpenRegular(p)
	if err != nil {
		r.err = err
		return r
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRuleBytes+1))
	if err != nil {
		r.err = err
		return r
	}
	if len(data) > maxRuleBytes {
		r.err = fmt.Errorf("larger than %d bytes", maxRuleBytes)
		return r
	}
	var fm map[string]any
	body, _, err := frontmatter.Decode(data, &fm, false)
	if err != nil {
		r.err = err
		return r
	}
	r.body, _ = cleanContent(p, body)
	sc, err := ruleScope(fm, strings.HasSuffix(p, ".mdc"))
	if err != nil {
		r.err = err
		return r
	}
	if sc.always {
		return r
	}
	r.paths, r.key = sc.patterns, sc.key
	if r.paths == nil {
		r.paths = []string{}
	}
	alts := 0
	for _, g := range r.paths {
		cg, err := compileGlob(g)
		if err != nil {
			r.err = fmt.Errorf("front matter: %s: %w", sc.key, err)
			return r
		}
		if alts += len(cg.alts); alts > maxRuleAlternatives {
			r.err = fmt.Errorf("front matter: %s: the patterns expand to more than %d alternatives", sc.key, maxRuleAlternatives)
			return r
		}
		r.globs = append(r.globs, cg)
	}
	return r
}

// globList reads a front matter key holding globs (paths, globs,
// applyTo): one glob or a list of globs; a string is split at its commas
// outside braces (Cursor's globs and Copilot's applyTo list patterns so:
// "src/**/*.ts, lib/**"), and empty patterns are dropped.
func globList(key string, v any) ([]string, error) {
	bad := fmt.Errorf("front matter: %s: want a glob or a list of globs", key)
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return splitPatterns(t), nil
	case []any:
		if len(t) == 0 {
			return nil, bad
		}
		if len(t) > maxRuleAlternatives {
			return nil, fmt.Errorf("front matter: %s: %d patterns, the limit is %d", key, len(t), maxRuleAlternatives)
		}
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, bad
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, bad
}
