package agents

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Agent is one slug visible from P and its contexts, global → local.
type Agent struct {
	Slug     string    `json:"slug"`
	Contexts []Context `json:"contexts"`
}

// List returns every slug with a context in the default chain of
// opts.Path, sorted by slug.
func List(opts Options) ([]Agent, error) {
	r, err := newResolver(opts)
	if err != nil {
		return nil, err
	}
	domains, _, _ := DefaultDomains(r.p)
	bySlug := map[string][]Context{}
	for _, d := range domains {
		for _, root := range r.opts.Roots() {
			for _, slug := range slugsIn(filepath.Join(d.Dir, root)) {
				bySlug[slug] = append(bySlug[slug], contextsAt(d, slug, []string{root}, nil)...)
			}
		}
	}
	out := []Agent{}
	for slug, cs := range bySlug {
		if len(cs) > 0 {
			sortContexts(cs)
			out = append(out, Agent{Slug: slug, Contexts: cs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out, nil
}

// slugsIn lists the subdirectories of an agents root (symlinks to
// directories included) in byte-wise order.
func slugsIn(root string) []string {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if ValidateSlug(e.Name()) == nil && isDir(filepath.Join(root, e.Name())) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// AgentHome is a context directory found anywhere under a workspace.
type AgentHome struct {
	Slug   string
	Domain string
}

// FindAll walks the workspace root of opts.Path (P itself when there is
// none) for agents roots and returns every (slug, domain) holding a triad
// document, sorted by slug then domain. .git and node_modules are skipped.
func FindAll(opts Options) ([]AgentHome, error) {
	r, err := newResolver(opts)
	if err != nil {
		return nil, err
	}
	ws := workspaceOrSelf(r.p)
	var out []AgentHome
	err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != ws && (n == ".git" || n == "node_modules") {
			return filepath.SkipDir
		}
		for _, root := range r.opts.Roots() {
			domain, ok := cutRoot(p, root)
			if !ok || !fsx.Contains(ws, domain) {
				continue
			}
			for _, slug := range slugsIn(p) {
				if sel, err := triad.SelectDir(filepath.Join(p, slug)); err == nil && !sel.Empty() {
					out = append(out, AgentHome{Slug: slug, Domain: domain})
				}
			}
			return filepath.SkipDir
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Slug != out[j].Slug {
			return out[i].Slug < out[j].Slug
		}
		return out[i].Domain < out[j].Domain
	})
	return out, err
}

// cutRoot returns the domain of p when p is <domain>/<root>.
func cutRoot(p, root string) (string, bool) {
	root = filepath.Clean(root)
	n := len(p) - len(root)
	if n < 1 || !os.IsPathSeparator(p[n-1]) || !fsx.Equal(p[n:], root) {
		return "", false
	}
	return filepath.Clean(p[:n]), true
}
