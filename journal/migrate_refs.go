package journal

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// planReferences adds to steps every rewrite that keeps references to the
// renamed documents (legacy path → new path) pointing at them: inherits and
// extensions.inherits of every triad document under the workspace roots of
// the renamed documents and of every document those inherit, directly or
// through others (a plain JSON policy such as policies/common.json; one
// outside the workspace only when allowOutside, as the merge reads it), the
// documents' paths in those repositories' AGENTS.md, and the existing
// mirrors of migrated documents. A document that is itself migrated gets
// its rewrite in its own step. A reference it cannot rewrite — held by a
// symbolic link, or spelled so that its last path element is not the old
// name — is an error naming it, before anything is written.
func planReferences(renames map[string]string, steps []*migStep, allowOutside bool) ([]*migStep, error) {
	p := &refPlanner{renames: renames, byFile: map[string]*migStep{}, byReal: map[string]string{}, seen: map[string]bool{}, allowOutside: allowOutside}
	for _, s := range steps {
		p.byFile[s.file] = s
	}
	p.steps = steps
	roots := map[string]bool{}
	for f := range renames {
		p.byReal[realOf(f)] = f
		dir := filepath.Dir(f)
		root, ok := agents.WorkspaceRoot(dir)
		if !ok {
			root = dir
		}
		roots[root] = true
	}
	p.roots = sortedKeys(roots)
	for _, root := range p.roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if path != root && skipDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			k, _, ok := triad.Match(d.Name())
			if !ok {
				return nil
			}
			return p.consider(path, k)
		})
		if err != nil {
			return p.steps, err
		}
	}
	// Documents reached only through inherits (any name, any place).
	for len(p.queue) > 0 {
		next := p.queue[0]
		p.queue = p.queue[1:]
		k, _, _ := triad.Match(filepath.Base(next))
		if err := p.consider(next, k); err != nil {
			return p.steps, err
		}
	}
	return append(p.steps, rosterSteps(renames)...), nil
}

// refPlanner is the state of planReferences.
type refPlanner struct {
	renames, byReal map[string]string
	byFile          map[string]*migStep
	seen            map[string]bool
	steps           []*migStep
	roots, queue    []string
	allowOutside    bool
}

// consider plans the rewrite of the references the document at path holds
// and queues the documents it inherits.
func (p *refPlanner) consider(path string, k triad.DocKind) error {
	if p.seen[path] {
		return nil
	}
	p.seen[path] = true
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	s := p.byFile[path]
	if s == nil {
		s = &migStep{file: path, target: path, kind: k}
		doc, layout, perm, err := readAgency(realOf(path))
		if err != nil {
			return nil // a document that does not decode is merged by nobody
		}
		s.doc, s.layout, s.perm = doc, layout, perm
		if s.old, err = fsx.ReadRegular(realOf(path), agents.MaxDocumentBytes); err != nil {
			return nil
		}
	}
	p.follow(path, s.doc)
	before := s.current()
	edits, err := rewriteInherits(path, s.doc, p.byReal, p.renames)
	if err != nil {
		return err
	}
	if len(edits) == 0 {
		return nil
	}
	if !fi.Mode().IsRegular() {
		if p.inside(realOf(path)) {
			return nil // the file it leads to is rewritten on its own
		}
		return fmt.Errorf("refusing to migrate: %s inherits %q, which is renamed, but is a symbolic link that migrate does not rewrite; rewrite the file it leads to, or rename by hand", path, edits[0][0])
	}
	if s.target != s.file {
		s.first = before
	}
	for _, e := range edits {
		s.refs = append(s.refs, fmt.Sprintf("inherits %q → %q", e[0], e[1]))
	}
	if p.byFile[path] == nil {
		p.byFile[path] = s
		p.steps = append(p.steps, s)
	}
	// A document changed only here keeps every other byte: the string
	// literals are replaced in its text.
	if s.target == s.file && !s.docChanged {
		if text, ok := replaceLiterals(s.old, edits); ok {
			s.text, s.literal = text, true
			return nil
		}
	}
	s.docChanged = true
	return nil
}

// follow queues the regular files doc's inherits name (inside a walked
// workspace, or anywhere when outside inherits are allowed).
func (p *refPlanner) follow(path string, doc *triad.Value) {
	for _, target := range inheritTexts(doc) {
		t, ok := agents.ResolveInherit(path, target)
		if !ok || p.seen[t] {
			continue
		}
		if fi, err := os.Stat(t); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if p.inside(realOf(t)) || p.allowOutside {
			p.queue = append(p.queue, t)
		}
	}
}

// inside: real lies in one of the walked workspace roots.
func (p *refPlanner) inside(real string) bool {
	for _, r := range p.roots {
		if fsx.Contains(realOf(r), real) {
			return true
		}
	}
	return false
}

// inheritTexts are the strings of doc's inherits and extensions.inherits.
func inheritTexts(doc *triad.Value) []string {
	var out []string
	add := func(arr *triad.Value) {
		if arr == nil || arr.Kind != triad.Array {
			return
		}
		for _, it := range arr.Items {
			if it.Kind == triad.String {
				out = append(out, it.Text)
			}
		}
	}
	add(doc.Get("inherits"))
	if ext := doc.Get("extensions"); ext != nil && ext.Kind == triad.Object {
		add(ext.Get("inherits"))
	}
	return out
}

// current is the step's document as planned so far.
func (s *migStep) current() []byte {
	if s.doc != nil && s.docChanged {
		return triad.Encode(s.doc, s.layout)
	}
	return s.old
}

// replaceLiterals replaces each edit's old string, as a JSON string literal,
// by the new one in data; ok is false when a literal is not found as the
// encoder would write it (then the document is encoded instead).
func replaceLiterals(data []byte, edits [][2]string) ([]byte, bool) {
	for _, e := range edits {
		from := triad.Encode(triad.NewString(e[0]), triad.EncodeOptions{Compact: true})
		to := triad.Encode(triad.NewString(e[1]), triad.EncodeOptions{Compact: true})
		from, to = bytes.TrimSpace(from), bytes.TrimSpace(to)
		if !bytes.Contains(data, from) {
			return nil, false
		}
		data = bytes.ReplaceAll(data, from, to)
	}
	return data, true
}

// rewriteInherits points every inherits entry of doc (the document at file)
// that names a renamed document at its new name, keeping the entry's form
// (only the last path element changes), and returns each {old, new}.
func rewriteInherits(file string, doc *triad.Value, byReal, renames map[string]string) ([][2]string, error) {
	var refs [][2]string
	var bad error
	fix := func(arr *triad.Value) {
		if arr == nil || arr.Kind != triad.Array {
			return
		}
		for _, it := range arr.Items {
			if it.Kind != triad.String {
				continue
			}
			p, ok := agents.ResolveInherit(file, it.Text)
			if !ok {
				continue
			}
			legacy, hit := renames[p]
			if hit {
				legacy = p
			} else if legacy, hit = byReal[realOf(p)]; !hit {
				continue
			}
			oldBase, newBase := filepath.Base(legacy), filepath.Base(renames[legacy])
			if !strings.HasSuffix(it.Text, oldBase) {
				if bad == nil {
					bad = fmt.Errorf("refusing to migrate: %s inherits %q, which leads to %s, renamed to %s; the reference does not end in %q, so migrate cannot rewrite it (rewrite it by hand first)", file, it.Text, legacy, newBase, oldBase)
				}
				continue
			}
			next := strings.TrimSuffix(it.Text, oldBase) + newBase
			refs = append(refs, [2]string{it.Text, next})
			it.Text = next
		}
	}
	fix(doc.Get("inherits"))
	if ext := doc.Get("extensions"); ext != nil && ext.Kind == triad.Object {
		fix(ext.Get("inherits"))
	}
	return refs, bad
}

// rosterSteps rewrite a renamed document's repository-relative path where
// its repository's AGENTS.md names it.
func rosterSteps(renames map[string]string) []*migStep {
	byRoster := map[string]*migStep{}
	for _, legacy := range sortedKeys(renames) {
		repo, ok := agents.RepoRoot(filepath.Dir(legacy))
		if !ok {
			continue
		}
		path := filepath.Join(repo, "AGENTS.md")
		s := byRoster[path]
		if s == nil {
			old, err := fsx.ReadRegular(path, agents.MaxDocumentBytes)
			if err != nil {
				continue
			}
			fi, err := os.Stat(path)
			if err != nil {
				continue
			}
			s = &migStep{file: path, target: path, old: old, text: old, perm: fi.Mode().Perm()}
			byRoster[path] = s
		}
		from, err1 := filepath.Rel(repo, legacy)
		to, err2 := filepath.Rel(repo, renames[legacy])
		if err1 != nil || err2 != nil {
			continue
		}
		from, to = filepath.ToSlash(from), filepath.ToSlash(to)
		if bytes.Contains(s.text, []byte(from)) {
			s.text = bytes.ReplaceAll(s.text, []byte(from), []byte(to))
			s.refs = append(s.refs, fmt.Sprintf("%s → %s", from, to))
		}
	}
	var out []*migStep
	for _, p := range sortedKeys(byRoster) {
		if s := byRoster[p]; s.refs != nil {
			out = append(out, s)
		}
	}
	return out
}

// mirrorSteps render again the existing mirror (.generated/<slug>.<kind>.triad.md)
// of every migrated document that its directory selects.
func mirrorSteps(steps []*migStep) []*migStep {
	var out []*migStep
	for _, s := range steps {
		if s.doc == nil || !s.docChanged || s.kind == "" {
			continue
		}
		dir := filepath.Dir(s.file)
		sel, err := triad.SelectDir(dir)
		if err != nil || sel.Files[s.kind] != filepath.Base(s.file) {
			continue
		}
		slug := filepath.Base(dir)
		path := filepath.Join(dir, ".generated", slug+"."+string(s.kind)+".triad.md")
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		old, err := fsx.ReadRegular(path, agents.MaxDocumentBytes)
		if err != nil {
			continue
		}
		body := renderers[s.kind](s.doc, slug)
		if bytes.Equal(old, body) {
			continue
		}
		out = append(out, &migStep{file: path, target: path, old: old, text: body, perm: fi.Mode().Perm(), mirror: true})
	}
	return out
}

func realOf(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
