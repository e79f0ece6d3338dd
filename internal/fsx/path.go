package fsx

import (
	"path/filepath"
	"strings"
)

// Contains reports whether path equals root or lies inside it, comparing whole
// path components: "/a/libs/x" does not contain "/a/libs/xy". Both paths are
// cleaned first; neither is resolved through symlinks.
func Contains(root, path string) bool {
	root = filepath.Clean(root)
	path = filepath.Clean(path)
	if root == path {
		return true
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Abs makes p absolute against base (not the process directory) and cleans
// it. Symlinks are not resolved: paths stay logical.
func Abs(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// Ancestors returns the directories from the filesystem root down to dir,
// both included, for a clean absolute dir.
func Ancestors(dir string) []string {
	dir = filepath.Clean(dir)
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
