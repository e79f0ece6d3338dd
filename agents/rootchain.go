package agents

import (
	"fmt"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Root chain modes.
const (
	ModeDefault  = "default"
	ModeExplicit = "explicit"
	ModeHybrid   = "hybrid"
)

// RootChain is the rootChain directive of an agent document.
type RootChain struct {
	Mode               string
	Roots              []string
	EnforceContainment bool
	// File is the agent document it was read from.
	File string
}

// ValidationError is a malformed rootChain directive.
type ValidationError struct {
	File string
	Msg  string
}

func (e *ValidationError) Error() string { return fmt.Sprintf("%s: rootChain: %s", e.File, e.Msg) }

// ContainmentError is a rootChain root that P cannot reach while
// containment is enforced.
type ContainmentError struct {
	// Root is the root as written; Dir is where it resolved.
	Root, Dir string
	// Path is P.
	Path string
	File string
}

func (e *ContainmentError) Error() string {
	return fmt.Sprintf("rootChain root %q (%s) in %s is not reachable from %s: it is not that path, an ancestor of it, or the submodule root containing it (set policy.enforceContainment to false to allow it)",
		e.Root, e.Dir, e.File, e.Path)
}

// ParseRootChain reads the rootChain directive of an agent document; a
// missing one is mode default.
func ParseRootChain(file string, doc *triad.Value) (RootChain, error) {
	rc := RootChain{Mode: ModeDefault, EnforceContainment: true, File: file}
	v := doc.Get("rootChain")
	if v == nil || v.Kind == triad.Null {
		return rc, nil
	}
	bad := func(format string, args ...any) (RootChain, error) {
		return rc, &ValidationError{File: file, Msg: fmt.Sprintf(format, args...)}
	}
	if v.Kind != triad.Object {
		return bad("want an object")
	}
	switch m := v.Str("mode"); m {
	case "", ModeDefault:
	case ModeExplicit, ModeHybrid:
		rc.Mode = m
	default:
		return bad("unknown mode %q (want default, explicit or hybrid)", m)
	}
	if roots := v.Get("roots"); roots != nil && roots.Kind != triad.Null {
		if roots.Kind != triad.Array {
			return bad("roots: want an array")
		}
		for i, r := range roots.Items {
			if r.Kind != triad.Object {
				return bad("roots[%d]: want an object", i)
			}
			if k := r.Str("kind"); k != "path" {
				return bad("roots[%d]: unknown kind %q (only \"path\" exists)", i, k)
			}
			p := r.Str("path")
			if p == "" {
				return bad("roots[%d]: path is empty", i)
			}
			rc.Roots = append(rc.Roots, p)
		}
	}
	if pol := v.Get("policy"); pol != nil && pol.Kind == triad.Object {
		if ec := pol.Get("enforceContainment"); ec != nil && ec.Kind == triad.Bool {
			rc.EnforceContainment = ec.Text == "true"
		}
	}
	return rc, nil
}

// resolveRoot makes a listed root absolute (relative roots against the
// workspace root of p) and checks it.
func resolveRoot(rc RootChain, root, p string) (string, error) {
	dir := root
	if !filepath.IsAbs(root) {
		dir = fsx.Abs(workspaceOrSelf(p), root)
	}
	dir = filepath.Clean(dir)
	if rc.EnforceContainment && !fsx.Contains(dir, p) {
		return dir, &ContainmentError{Root: root, Dir: dir, Path: p, File: rc.File}
	}
	return dir, nil
}
