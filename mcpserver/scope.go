package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

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
	for _, c := range []string{raw, clean} {
		if err := sc.roots.Check(c); err != nil {
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

// confinedFS is the instruction loader's filesystem that refuses to open a
// file whose real path leads outside the allowed roots: the loader then
// reports it unreadable with the reason, never its content.
type confinedFS struct {
	instructions.FS
	roots confine.Roots
}

func (c confinedFS) OpenRegular(name string) (io.ReadCloser, error) {
	if err := c.roots.Check(name); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return c.FS.OpenRegular(name)
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

// OpenRegularIn opens an @import through the directory it must stay in,
// as the loader's own filesystem does, after the allowed roots' check.
func (c confinedFS) OpenRegularIn(dir, name string) (io.ReadCloser, error) {
	p := filepath.Join(dir, name)
	if err := c.roots.Check(p); err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if ro, ok := c.FS.(instructions.RootOpener); ok {
		return ro.OpenRegularIn(dir, name)
	}
	return c.FS.OpenRegular(p)
}
