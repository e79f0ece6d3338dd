package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Write scopes.
const (
	ScopeSubmodule = "submodule"
	ScopeWorkspace = "workspace"
	ScopeLocal     = "local"
)

// ErrNoWriteRoot means P is in no repository and no --agents-dir was given.
var ErrNoWriteRoot = errors.New("no write root")

// Target is where a slug's agency writes go.
type Target struct {
	// Root is the write root; Dir is <root>/<agents root>/<slug> (or
	// <agents dir>/<slug> for the fallback).
	Root, Dir string
	// Source is the write root relative to the workspace root ("." for the
	// workspace itself), recorded in entries.
	Source string
	// Workspace is the workspace root, or "" outside any repository.
	Workspace string
}

// ResolveTarget finds the write target of slug at opts.Path for scope
// (default submodule): the repo root of P, the workspace root of P, or P.
// Outside any repository agentsDir is used directly (<agentsDir>/<slug>);
// without it the error wraps [ErrNoWriteRoot].
func ResolveTarget(opts agents.Options, slug, scope, agentsDir string) (Target, error) {
	if err := agents.ValidateSlug(slug); err != nil {
		return Target{}, err
	}
	t, err := WriteRoot(opts, scope, agentsDir)
	if err != nil {
		return Target{}, err
	}
	if t.Workspace == "" {
		t.Dir = filepath.Join(t.Root, slug)
	} else {
		t.Dir = filepath.Join(t.Root, writeAgentsRoot(t.Root, opts.Roots(), slug), slug)
	}
	return t, nil
}

// writeAgentsRoot is the first agents root under root whose context for
// slug already holds an agency document, else the first agents root
// (.clia/agents): --agents-root adds roots to read, and a write still lands
// in the existing agency log of an older tree rather than beside it.
func writeAgentsRoot(root string, roots []string, slug string) string {
	for _, r := range roots {
		if sel, err := triad.SelectDir(filepath.Join(root, r, slug)); err == nil {
			if _, ok := sel.Files[triad.Agency]; ok {
				return r
			}
		}
	}
	return roots[0]
}

// WriteRoot resolves the write root of opts.Path by scope; Dir is left
// empty. Outside any repository the root is agentsDir itself.
func WriteRoot(opts agents.Options, scope, agentsDir string) (Target, error) {
	if err := agents.ValidateRoots(opts.AgentsRoots); err != nil {
		return Target{}, err
	}
	p := filepath.Clean(opts.Path)
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return Target{}, fmt.Errorf("path %s is not a directory", p)
	}
	repo, inRepo := agents.RepoRoot(p)
	ws, _ := agents.WorkspaceRoot(p)
	if !inRepo {
		if agentsDir == "" {
			return Target{}, fmt.Errorf("%w: no .git directory or file at or above %s; run inside a repository, or pass --agents-dir DIR to write to DIR/<slug>/", ErrNoWriteRoot, p)
		}
		dir := fsx.Abs(p, agentsDir)
		return Target{Root: dir, Source: filepath.Base(dir)}, nil
	}
	var root string
	switch scope {
	case "", ScopeSubmodule:
		root = repo
	case ScopeWorkspace:
		root = ws
	case ScopeLocal:
		root = p
	default:
		return Target{}, fmt.Errorf("unknown write scope %q (want submodule, workspace or local)", scope)
	}
	src, err := filepath.Rel(ws, root)
	if err != nil {
		return Target{}, err
	}
	return Target{Root: root, Source: filepath.ToSlash(src), Workspace: ws}, nil
}

// checkDir refuses, with a message, an existing component of t.Dir that
// resolves (through symlinks) outside the write root or is not a
// directory. It creates nothing: creating by path would follow a symlink
// swapped in after the check; [openDir] creates through the root.
// It costs one Lstat per component; only a symbolic link is resolved (on
// Windows a resolution reads every directory on the way, and resolving
// each component made a deep write quadratic: minutes per corpus migrate
// under Wine).
func checkDir(t Target) error {
	rootReal, err := filepath.EvalSymlinks(t.Root)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(t.Root, t.Dir)
	if err != nil || !fsx.Contains(t.Root, t.Dir) {
		return fmt.Errorf("target %s is outside the write root %s", t.Dir, t.Root)
	}
	cur := t.Root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err == nil && fi.IsDir() {
			continue // a directory under a directory inside the root
		}
		real, err := filepath.EvalSymlinks(cur)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("refusing to write: %s is a dangling symlink", cur)
		}
		if err != nil {
			return err
		}
		if !fsx.Contains(rootReal, real) {
			return fmt.Errorf("refusing to write: %s resolves to %s, outside the write root %s", cur, real, t.Root)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return fmt.Errorf("refusing to write: %s is not a directory", cur)
		}
	}
	return nil
}

// openDir creates dir inside the write root root (after [checkDir]'s
// checks, which word a refusal) and opens it through the root: every
// later lock, read, temporary file and rename goes through the returned
// handle, so a directory swapped for a symbolic link after the checks
// cannot lead any of them outside the root, nor split one write between
// two directories. The caller closes it.
func openDir(root, dir string) (*os.Root, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", root, err)
	}
	if err := checkDir(Target{Root: root, Dir: dir}); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	d, err := fsx.OpenDirIn(r, rel, true)
	if err != nil {
		return nil, fmt.Errorf("refusing to write: %w", err)
	}
	return d, nil
}

// selectIn is [triad.SelectDir] on the directory a root holds (at path):
// the regular files and symlinks to regular files by kind. A symlink is
// judged by where its path leads, so one leading outside is selected and
// then refused by [checkFile] with a message, never silently passed over.
func selectIn(dir *os.Root, path string) (triad.Selection, error) {
	d, err := dir.Open(".")
	if err != nil {
		return triad.Selection{}, err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return triad.Selection{}, err
	}
	var names []string
	for _, e := range ents {
		switch {
		case e.IsDir():
			continue
		case e.Type()&os.ModeSymlink != 0:
			if fi, err := os.Stat(filepath.Join(path, e.Name())); err != nil || !fi.Mode().IsRegular() {
				continue
			}
		case !e.Type().IsRegular():
			continue
		}
		names = append(names, e.Name())
	}
	return triad.SelectNames(names), nil
}

// checkFile refuses an existing file that resolves outside the target
// directory.
func checkFile(dir, file string) error {
	real, err := filepath.EvalSymlinks(file)
	if errors.Is(err, os.ErrNotExist) {
		if _, lerr := os.Lstat(file); lerr == nil {
			return fmt.Errorf("refusing to write: %s is a dangling symlink", file)
		}
		return nil
	}
	if err != nil {
		return err
	}
	dirReal, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if filepath.Dir(real) != dirReal {
		return fmt.Errorf("refusing to write: %s resolves to %s, outside %s", file, real, dir)
	}
	return nil
}
