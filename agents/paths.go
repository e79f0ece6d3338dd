package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// DefaultAgentsRoot is the agents root searched when none is configured.
const DefaultAgentsRoot = ".clia/agents"

// Options says where to look and how strictly.
type Options struct {
	// Path is P, the working path; made absolute and clean by [Options.Norm].
	Path string
	// AgentsRoots are searched in every domain root after
	// [DefaultAgentsRoot], in order: they add to it, never replace it.
	AgentsRoots []string
	// AllowOutsideInherits lets inherits reach files outside the workspace.
	AllowOutsideInherits bool
	// Open, when set, opens each triad document read instead of
	// [fsx.OpenRegular]: a server face passes its confined opener
	// ([confine.Roots.OpenRegular]), so no document outside its roots is
	// read, not even one a symbolic link swapped in mid-resolution leads
	// to.
	Open func(path string) (*os.File, fs.FileInfo, error)
	// CheckSchema makes [Doctor] validate every document of the merges
	// against CLIA's published JSON Schemas (see package triadschema).
	CheckSchema bool
	// CheckCLIA makes [Doctor] also run the checks of CLIA's doctor that
	// lineage's reads do not need: a context without its agenda or agency
	// document (an error), contribution types that are not All
	// Contributors types, no emoji tag and none to derive (warnings).
	CheckCLIA bool
	// Trail, when set, notes every path a resolution and the merges of its
	// chain look at (see [fsx.Trail]): a caller keeping a merged profile
	// reuses it while the trail is fresh.
	Trail *fsx.Trail
}

// Roots returns the agents roots in use: [DefaultAgentsRoot], then each
// of AgentsRoots not already listed.
//
// Roots are compared as the OS compares paths: `.clia/agents/` is
// `.clia/agents`, and on Windows and macOS `.CLIA\agents` is too, so no
// context directory is found twice.
func (o Options) Roots() []string {
	out := []string{filepath.Clean(DefaultAgentsRoot)}
	for _, r := range o.AgentsRoots {
		c := filepath.Clean(r)
		if !slices.ContainsFunc(out, func(have string) bool { return fsx.Equal(have, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// MaxSlugBytes is the longest slug: with "@<folder>.agency.triad.json"
// after it, a file name must stay within the usual 255-byte limit.
const MaxSlugBytes = 128

// ValidateSlug rejects slugs that would escape a context directory, that
// hold a character that is not printable (a control character, a line
// separator) or bytes that are not UTF-8, or that are longer than
// MaxSlugBytes: a slug becomes a directory and appears in listings.
func ValidateSlug(slug string) error {
	if strings.TrimSpace(slug) == "" {
		return errors.New("slug is required")
	}
	if slug == "." || slug == ".." || strings.ContainsAny(slug, `/\`) {
		return fmt.Errorf("invalid slug %q: it names a single directory", slug)
	}
	if len(slug) > MaxSlugBytes {
		return fmt.Errorf("invalid slug %q: %d bytes, the limit is %d", slug[:32]+"…", len(slug), MaxSlugBytes)
	}
	if fsx.LineSafe(slug) != slug {
		return fmt.Errorf("invalid slug %q: only printable UTF-8 characters are allowed", slug)
	}
	return nil
}

// ValidateRoots rejects agents roots that are absolute or climb out.
func ValidateRoots(roots []string) error {
	for _, r := range roots {
		c := filepath.Clean(r)
		// Inside "." rules out absolute, rooted (`\x`), drive-relative ("C:x") and climbing paths.
		if r == "" || c == "." || !fsx.Contains(".", c) {
			return fmt.Errorf("invalid agents root %q: want a relative folder such as .clia/agents", r)
		}
	}
	return nil
}

// hasGit reports whether dir holds a .git directory or file.
func hasGit(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// RepoRoot returns the nearest ancestor of p (p included) that holds a .git
// directory or file; ok is false when there is none.
func RepoRoot(p string) (string, bool) {
	anc := fsx.Ancestors(p)
	for i := len(anc) - 1; i >= 0; i-- {
		if hasGit(anc[i]) {
			return anc[i], true
		}
	}
	return "", false
}

// WorkspaceRoot returns the outermost ancestor of p (p included) that holds a
// .git directory or file; ok is false when there is none.
func WorkspaceRoot(p string) (string, bool) {
	for _, a := range fsx.Ancestors(p) {
		if hasGit(a) {
			return a, true
		}
	}
	return "", false
}

// workspaceOrSelf is the workspace root of p, or p itself.
func workspaceOrSelf(p string) string {
	if w, ok := WorkspaceRoot(p); ok {
		return w
	}
	return p
}

// depth counts the path components of a clean absolute path.
func depth(p string) int {
	if filepath.Dir(p) == p {
		return 0
	}
	return strings.Count(p[len(filepath.VolumeName(p)):], string(filepath.Separator))
}

// realPath resolves symlinks; a path that cannot be resolved is returned
// cleaned.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
