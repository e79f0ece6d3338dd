package webui

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/fsx"
)

// servedDir opens the instructions page's dir (slash-separated, relative
// to the served tree) through an [os.Root] of that tree: a symbolic link
// that leads out of it, a missing directory or a file is a bad request.
// It returns the directory's real path, which lies inside the tree.
func (s *Server) servedDir(dir string) (string, error) {
	cwd := s.o.Instructions.Cwd
	bad := func(why string) error { return badRequest{"dir=" + dir + ": " + why} }
	rel := filepath.FromSlash(dir)
	if filepath.IsAbs(rel) || !filepath.IsLocal(rel) && filepath.Clean(rel) != "." {
		return "", bad("want a directory inside " + cwd)
	}
	root, err := os.OpenRoot(cwd)
	if err != nil {
		return "", err
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", bad("no such directory inside " + cwd)
	case err != nil:
		// os.Root refuses a path whose symbolic links lead out of the tree.
		return "", bad("not a directory inside " + cwd + " (a symbolic link out of it is not followed)")
	case !fi.IsDir():
		return "", bad("not a directory")
	}
	realCwd, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(cwd, rel))
	if err != nil || !fsx.Contains(realCwd, real) {
		return "", bad("not a directory inside " + cwd + " (a symbolic link out of it is not followed)")
	}
	return real, nil
}
