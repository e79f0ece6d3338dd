package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// MaxInheritDepth bounds inherits chains; deeper targets are skipped with a
// warning.
const MaxInheritDepth = 16

// Inherits returns a document's inheritance targets: the top-level
// "inherits" strings, then "extensions.inherits".
func Inherits(doc *triad.Value) []string {
	var out []string
	add := func(v *triad.Value) {
		if v == nil || v.Kind != triad.Array {
			return
		}
		for _, it := range v.Items {
			if it.Kind == triad.String && strings.TrimSpace(it.Text) != "" {
				out = append(out, it.Text)
			}
		}
	}
	add(doc.Get("inherits"))
	add(doc.Get("extensions").Get("inherits"))
	return out
}

// ResolveInherit turns an inherits target into a path: absolute as is,
// "./" and "../" against the referencing file's directory, anything else
// against the referencing file's repo root (its directory when it has none).
// ok is false for URLs, which are never fetched.
func ResolveInherit(from, target string) (string, bool) {
	if i := strings.Index(target, "://"); i > 0 && !strings.ContainsAny(target[:i], "/.") {
		return "", false
	}
	dir := filepath.Dir(from)
	switch {
	case filepath.IsAbs(target):
		return filepath.Clean(target), true
	case strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../"):
		return fsx.Abs(dir, target), true
	}
	if root, ok := RepoRoot(dir); ok {
		return fsx.Abs(root, target), true
	}
	return fsx.Abs(dir, target), true
}

// layerLoader builds the layers of one merge with one visited set.
type layerLoader struct {
	r         *resolver
	visited   map[string]bool
	workspace string
	layers    []triad.Layer
}

func (r *resolver) newLoader() *layerLoader {
	return &layerLoader{r: r, visited: map[string]bool{}, workspace: realPath(workspaceOrSelf(r.p))}
}

// add loads file (after its inherited documents) unless it was already
// visited.
func (l *layerLoader) add(file string, inherited bool, depth int) {
	l.r.opts.Trail.Note(file)
	real := realPath(file)
	if l.visited[real] {
		return
	}
	l.visited[real] = true
	doc, err := l.r.docs.load(file, &l.r.rep)
	if err != nil {
		return
	}
	if doc.Kind != triad.Object {
		l.r.rep.warnf("%s: top-level value is not an object; ignored", file)
		return
	}
	for _, t := range Inherits(doc) {
		l.inherit(file, t, depth+1)
	}
	l.layers = append(l.layers, triad.Layer{File: file, Doc: doc, Inherited: inherited})
}

func (l *layerLoader) inherit(from, target string, depth int) {
	rep := &l.r.rep
	if t := l.r.opts.Trail; t != nil {
		// ResolveInherit looks for the repository root above from.
		for _, a := range fsx.Ancestors(filepath.Dir(from)) {
			t.Note(filepath.Join(a, ".git"))
		}
	}
	path, ok := ResolveInherit(from, target)
	if !ok {
		rep.warnf("%s: inherits %q is a URL; never fetched", from, target)
		return
	}
	if depth > MaxInheritDepth {
		rep.warnf("%s: inherits %q is deeper than %d levels; skipped", from, target, MaxInheritDepth)
		return
	}
	l.r.opts.Trail.Note(path)
	if problem := inheritProblem(path); problem != "" {
		rep.warnf("%s: inherits %q: %s; skipped", from, target, problem)
		return
	}
	if real := realPath(path); !l.r.opts.AllowOutsideInherits && !fsx.Contains(l.workspace, real) {
		rep.warnf("%s: inherits %q: %s is outside the workspace %s; skipped (--allow-outside-inherits lifts this)", from, target, real, l.workspace)
		return
	}
	l.add(path, true, depth)
}

// Layers returns the merge layers of kind over the chain: for each context
// global → local, its document's inherited documents depth-first, then the
// document itself.
func (c *Chain) Layers(kind triad.DocKind) []triad.Layer {
	l := c.r.newLoader()
	for _, ctx := range c.Contexts {
		if f := ctx.Files.Get(kind); f != "" {
			l.add(f, false, 0)
		}
	}
	return l.layers
}

// inheritProblem says what is wrong with an inherits target ("" when it is
// a regular file): missing, a symlink loop, or what it is instead (a
// directory, a FIFO, a device such as /dev/zero). It only stats, so nothing
// is opened that could block.
func inheritProblem(path string) string {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Mode().IsRegular():
		return ""
	case err == nil:
		return fmt.Sprintf("%s is a %s, not a regular file", fsx.LineSafe(path), fsx.KindOf(fi.Mode()))
	case fsx.IsSymlinkLoop(err):
		return fmt.Sprintf("%s is a symbolic link loop", fsx.LineSafe(path))
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s is missing", fsx.LineSafe(path))
	default:
		return fmt.Sprintf("%s cannot be read: %v", fsx.LineSafe(path), err)
	}
}
