package journal

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// refRewrite is a file outside the moved context whose references change.
type refRewrite struct {
	journalOp
	refs []string
}

// newPath is where the file at p (as a reference resolves it) is after the
// move, or p.
func (mv *mover) newPath(p string) string {
	if n, ok := mv.paths[p]; ok {
		return n
	}
	if real := realOf(p); real != p {
		for old, n := range mv.paths {
			if realOf(old) == real {
				return n
			}
		}
	}
	return p
}

// retarget rewrites the inherits of doc — the document at oldFile, which
// will be at newFile — so each still leads to its target's new place, in
// the form it was written in, and returns each {old, new} text.
func (mv *mover) retarget(oldFile, newFile string, doc *triad.Value) ([][2]string, error) {
	var edits [][2]string
	var bad error
	fix := func(arr *triad.Value) {
		if arr == nil || arr.Kind != triad.Array {
			return
		}
		for _, it := range arr.Items {
			if it.Kind != triad.String {
				continue
			}
			was, ok := agents.ResolveInherit(oldFile, it.Text)
			if !ok {
				continue
			}
			target := mv.newPath(was)
			if now, _ := agents.ResolveInherit(newFile, it.Text); now == target {
				continue
			}
			next := reform(it.Text, newFile, target)
			if now, _ := agents.ResolveInherit(newFile, next); now != target {
				if bad == nil {
					bad = fmt.Errorf("refusing to move: %s inherits %q, which cannot be rewritten to lead to %s", oldFile, it.Text, target)
				}
				continue
			}
			edits = append(edits, [2]string{it.Text, next})
			it.Text = next
		}
	}
	fix(doc.Get("inherits"))
	if ext := doc.Get("extensions"); ext != nil && ext.Kind == triad.Object {
		fix(ext.Get("inherits"))
	}
	return edits, bad
}

// reform writes target as a reference from file in the form of text:
// absolute, "./"/"../" relative to file's directory, or relative to
// file's repository root.
func reform(text, file, target string) string {
	dir := filepath.Dir(file)
	switch {
	case filepath.IsAbs(text):
		return target
	case strings.HasPrefix(text, "./") || strings.HasPrefix(text, "../"):
		r, err := filepath.Rel(dir, target)
		if err != nil {
			return text
		}
		r = filepath.ToSlash(r)
		if !strings.HasPrefix(r, "../") {
			r = "./" + r
		}
		return r
	}
	base := dir
	if root, ok := agents.RepoRoot(dir); ok {
		base = root
	}
	r, err := filepath.Rel(base, target)
	if err != nil || strings.HasPrefix(r, "..") {
		if r, err = filepath.Rel(dir, target); err != nil {
			return text
		}
		if r = filepath.ToSlash(r); !strings.HasPrefix(r, "../") {
			r = "./" + r
		}
		return r
	}
	return filepath.ToSlash(r)
}

// referrers finds the documents outside the context — every triad
// document under the workspace, and every document their inherits reach
// — whose references into the context must follow it, and the roster.
func (mv *mover) referrers(byReal map[string]string, srcRoot, dstRoot string) ([]refRewrite, error) {
	ws, ok := agents.WorkspaceRoot(mv.from)
	if !ok {
		ws = srcRoot
	}
	seen := map[string]bool{}
	var queue []string
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p == mv.from || (p != ws && skipDirs[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, _, ok := triad.Match(d.Name()); ok {
			queue = append(queue, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := range mv.paths {
		queue = append(queue, p) // their targets may be plain JSON referrers
	}
	var out []refRewrite
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		old, err := fsx.ReadRegular(p, agents.MaxDocumentBytes)
		if err != nil {
			continue
		}
		doc, layout, err := decodeAgency(p, old)
		if err != nil {
			continue
		}
		for _, t := range inheritTexts(doc) {
			if tp, ok := agents.ResolveInherit(p, t); ok && fsx.Contains(ws, realOf(tp)) && !seen[tp] {
				if fi, err := os.Stat(tp); err == nil && fi.Mode().IsRegular() {
					queue = append(queue, tp)
				}
			}
		}
		if _, moved := mv.paths[p]; moved {
			continue
		}
		edits, err := mv.retarget(p, p, doc)
		if err != nil {
			return nil, err
		}
		if len(edits) == 0 {
			continue
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("refusing to move: %s inherits %q but is a symbolic link that move does not rewrite", p, edits[0][0])
		}
		data, ok := replaceLiterals(old, edits)
		if !ok {
			data = triad.Encode(doc, layout)
		}
		r := refRewrite{journalOp: journalOp{Path: p, Old: old, Data: data}}
		for _, e := range edits {
			r.refs = append(r.refs, fmt.Sprintf("inherits %q → %q", e[0], e[1]))
		}
		out = append(out, r)
	}
	if r, ok := mv.roster(srcRoot, dstRoot); ok {
		out = append(out, r)
	}
	return out, nil
}

// roster rewrites the context's path cell in the write root's AGENTS.md
// when the context stays in that repository.
func (mv *mover) roster(srcRoot, dstRoot string) (refRewrite, bool) {
	if srcRoot != dstRoot {
		return refRewrite{}, false
	}
	path := filepath.Join(srcRoot, "AGENTS.md")
	old, err := fsx.ReadRegular(path, agents.MaxDocumentBytes)
	if err != nil {
		return refRewrite{}, false
	}
	from, err1 := filepath.Rel(srcRoot, mv.from)
	to, err2 := filepath.Rel(srcRoot, mv.to)
	if err1 != nil || err2 != nil {
		return refRewrite{}, false
	}
	cellFrom, cellTo := "`"+filepath.ToSlash(from)+"/`", "`"+filepath.ToSlash(to)+"/`"
	if !bytes.Contains(old, []byte(cellFrom)) {
		return refRewrite{}, false
	}
	data := bytes.ReplaceAll(old, []byte(cellFrom), []byte(cellTo))
	return refRewrite{journalOp: journalOp{Path: path, Old: old, Data: data}, refs: []string{cellFrom + " → " + cellTo}}, true
}
