package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/confine"
	"github.com/agentlineage/lineage/internal/fsx"
)

// scope is what one call may touch: the allowed roots, and the working
// directory paths default to and are resolved against.
type scope struct {
	roots confine.Roots
	work  string
}

// callScope is the scope of a tool call (see [Server.clientRoots] for ask).
func (s *Server) callScope(ctx context.Context, req *mcp.CallToolRequest) (scope, *mcp.CallToolResult) {
	roots, ask := s.clientRoots(ctx, req)
	if ask != nil {
		return scope{}, ask
	}
	return s.scopeOf(roots), nil
}

// scopeOf is the scope for the client's roots: the allowed roots are the
// client's (else the server's directory) plus Options.AllowRoots. The
// working directory is the first client root inside the server's
// directory, else the server's directory when it is allowed, else the
// first client root.
func (s *Server) scopeOf(clientRoots []string) scope {
	clientRoots = s.within(clientRoots)
	dirs := clientRoots
	if len(dirs) == 0 {
		dirs = []string{s.opts.Cwd}
	}
	dirs = append(append([]string(nil), dirs...), s.opts.AllowRoots...)
	roots, err := confine.New(dirs...)
	if err != nil {
		// Client roots come from file URLs and are absolute; allow-roots
		// were checked by New. Allow nothing rather than anything.
		roots = confine.Roots{}
	}
	work := s.opts.Cwd
	if inside := firstInside(clientRoots, s.opts.Cwd); inside != "" {
		work = inside
	} else if len(clientRoots) > 0 && roots.Check(s.opts.Cwd) != nil {
		work = clientRoots[0]
	}
	return scope{roots: roots, work: work}
}

// within intersects the client's roots with Options.RootsWithin (when
// set): a client root inside a bound is kept, a bound inside a client root
// takes its place (a client declaring "/" gets the bounds), and a client
// root that meets no bound is dropped. Containment is judged on real
// locations. The result is sorted and without duplicates.
func (s *Server) within(clientRoots []string) []string {
	if len(s.opts.RootsWithin) == 0 || len(clientRoots) == 0 {
		return clientRoots
	}
	out := []string{}
	for _, c := range clientRoots {
		rc := confine.Real(c)
		for _, w := range s.opts.RootsWithin {
			rw := confine.Real(w)
			switch {
			case fsx.Contains(rw, rc):
				out = append(out, c)
			case fsx.Contains(rc, rw):
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func firstInside(dirs []string, parent string) string {
	for _, d := range dirs {
		if fsx.Contains(parent, d) {
			return d
		}
	}
	return ""
}

// path is the argument p of arg made absolute against the working
// directory ("" is the working directory), refused when it leads outside
// the allowed roots. Both the path as written (a ".." after a symlink goes
// where the OS takes it) and its clean form must be inside.
func (sc scope) path(arg, p string) (string, error) {
	if p == "" {
		return sc.work, nil
	}
	raw := p
	if !filepath.IsAbs(p) {
		raw = sc.work + string(filepath.Separator) + p
	}
	clean := fsx.Abs(sc.work, p)
	if err := sc.roots.Check(raw); err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	// The clean form, unless it is the same path (then it was checked).
	if clean != raw {
		if err := sc.roots.Check(clean); err != nil {
			return "", fmt.Errorf("%s: %w", arg, err)
		}
	}
	return clean, nil
}

// check refuses a path the server found itself (a write target) when it
// leads outside the allowed roots.
func (sc scope) check(what, p string) error {
	if err := sc.roots.Check(p); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// confinedFS is the instruction loader's filesystem that opens files only
// through the allowed root holding them ([confine.Roots.OpenRegular]): a
// file outside, or one a symbolic link swapped in at any moment would lead
// outside, is refused and reported unreadable with the reason, never read.
// Stat and Lstat pass through (the root estimation looks for markers above
// the roots); they give no content.
//
// The instruction chain above the roots is readable too (the MCP page: a
// client whose root is a subdirectory still gets the project's AGENTS.md):
// a file named by one of names, in a directory between the project root
// and an allowed root, opened through the project root so its real path
// stays under it. Nothing else above the roots is read.
type confinedFS struct {
	instructions.FS
	roots confine.Roots
	// project is the project root (confined to), names the instruction
	// file names; project is zero when no root lies below a project root.
	project confine.Roots
	names   []string
	// config are the directories the server's own instruction settings
	// name (the global files' folders, imports.allowedRoots): read as the
	// CLI reads them with the same settings, never reached by a tool's
	// path argument.
	config confine.Roots
}

func (c confinedFS) OpenRegular(name string) (io.ReadCloser, error) {
	f, _, err := c.roots.OpenRegular(name)
	if err == nil {
		return f, nil
	}
	if c.chainAbove(name) {
		if f, _, err2 := c.project.OpenRegular(name); err2 == nil {
			return f, nil
		}
	}
	if c.config.Check(name) == nil {
		if f, _, err2 := c.config.OpenRegular(name); err2 == nil {
			return f, nil
		}
	}
	return nil, err
}

// chainAbove reports whether name is an instruction file of a directory
// between the project root and one of the allowed roots (both included).
func (c confinedFS) chainAbove(name string) bool {
	if len(c.project.Dirs()) == 0 || !slices.Contains(c.names, filepath.Base(name)) {
		return false
	}
	dir := filepath.Dir(filepath.Clean(name))
	if !fsx.Contains(c.project.Dirs()[0], dir) {
		return false
	}
	for _, r := range c.roots.Dirs() {
		if fsx.Contains(dir, r) {
			return true
		}
	}
	return false
}

// ReadDir lets the loader list rule folders (.agents/rules, .claude/rules)
// inside the allowed roots.
func (c confinedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.roots.Check(name); err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	if l, ok := c.FS.(instructions.DirReader); ok {
		return l.ReadDir(name)
	}
	return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.ErrUnsupported}
}

// OpenRegularIn opens an @import that must stay in dir: through dir's own
// os.Root when dir lies inside an allowed root (that confines it to both),
// else through the allowed root holding it, as OpenRegular does.
func (c confinedFS) OpenRegularIn(dir, name string) (io.ReadCloser, error) {
	if ro, ok := c.FS.(instructions.RootOpener); ok && (c.roots.Check(dir) == nil || c.config.Check(dir) == nil) {
		return ro.OpenRegularIn(dir, name)
	}
	return c.OpenRegular(filepath.Join(dir, name))
}
