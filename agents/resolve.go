package agents

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Chain is the resolved context chain of one slug at P, global → local, with
// what --explain shows: the default chain, the injected roots and what was
// left out.
type Chain struct {
	Slug     string     `json:"slug"`
	Path     string     `json:"path"`
	Mode     string     `json:"mode"`
	Contexts []Context  `json:"chain"`
	Default  []Context  `json:"defaultChain"`
	Injected []Context  `json:"injected"`
	Excluded []Excluded `json:"excluded"`
	Warnings []string   `json:"warnings"`

	r *resolver
}

// Report returns the findings gathered so far (including those of later
// merges over this chain).
func (c *Chain) Report() Report { return c.r.rep.Sorted() }

type resolver struct {
	opts Options
	p    string
	docs docCache
	rep  Report
}

func newResolver(opts Options) (*resolver, error) {
	if !filepath.IsAbs(opts.Path) {
		return nil, fmt.Errorf("path %q is not absolute", opts.Path)
	}
	if err := ValidateRoots(opts.AgentsRoots); err != nil {
		return nil, err
	}
	return &resolver{opts: opts, p: filepath.Clean(opts.Path), docs: docCache{open: opts.Open, trail: opts.Trail}}, nil
}

// Resolve computes the chain of slug at opts.Path: the default chain, then
// the rootChain directive of its most local agent document. A malformed
// directive is a *ValidationError, an unreachable root a *ContainmentError.
func Resolve(opts Options, slug string) (*Chain, error) {
	if err := ValidateSlug(slug); err != nil {
		return nil, err
	}
	r, err := newResolver(opts)
	if err != nil {
		return nil, err
	}
	return r.resolve(slug)
}

func (r *resolver) resolve(slug string) (*Chain, error) {
	ch := &Chain{Slug: slug, Path: r.p, Mode: ModeDefault, Injected: []Context{}, Excluded: []Excluded{}, r: r}
	if t := r.opts.Trail; t != nil {
		// The domains, the repository and workspace roots: what each
		// ancestor holds (.git, .gitmodules; the agents roots are noted
		// where they are looked at).
		for _, a := range fsx.Ancestors(r.p) {
			t.NoteAll(filepath.Join(a, ".git"), filepath.Join(a, ".gitmodules"))
		}
	}
	domains, excluded, warns := DefaultDomains(r.p)
	for _, w := range warns {
		r.rep.warnf("%s", w)
	}
	ch.Excluded = append(ch.Excluded, excluded...)
	ch.Default = []Context{}
	for _, d := range domains {
		ch.Default = append(ch.Default, contextsAt(d, slug, r.opts.Roots(), r.opts.Trail)...)
	}
	for _, c := range ch.Default {
		r.noteCandidates(c)
	}
	ch.Contexts = append([]Context{}, ch.Default...)
	rc, ok, err := r.rootChain(ch.Default)
	if err != nil {
		ch.Warnings = r.rep.Sorted().all()
		return ch, err
	}
	if ok && rc.Mode != ModeDefault {
		if err := r.inject(ch, rc, slug); err != nil {
			ch.Warnings = r.rep.Sorted().all()
			return ch, err
		}
	}
	ch.Warnings = r.rep.Sorted().all()
	return ch, nil
}

func (rep Report) all() []string {
	return append(append([]string{}, rep.Errors...), rep.Warnings...)
}

func (r *resolver) noteCandidates(c Context) {
	for _, k := range []string{"agent", "agenda", "agency"} {
		for kind, names := range c.Ignored {
			if string(kind) == k && len(names) > 0 {
				r.rep.warnf("%s: several %s documents: using %s, ignoring %v", c.Dir, k, filepath.Base(c.Files.Get(kind)), names)
			}
		}
	}
}

// rootChain reads the directive of the most local agent document.
func (r *resolver) rootChain(def []Context) (RootChain, bool, error) {
	for i := len(def) - 1; i >= 0; i-- {
		f := def[i].Files.Agent
		if f == "" {
			continue
		}
		doc, err := r.docs.load(f, &r.rep)
		if err != nil {
			return RootChain{}, false, nil
		}
		rc, err := ParseRootChain(f, doc)
		return rc, err == nil, err
	}
	return RootChain{}, false, nil
}

// inject applies an explicit or hybrid root chain to ch.
func (r *resolver) inject(ch *Chain, rc RootChain, slug string) error {
	ch.Mode = rc.Mode
	seen := map[string]bool{}
	foreign := map[string]bool{}
	var listed []Context
	for _, root := range rc.Roots {
		dir, err := resolveRoot(rc, root, r.p)
		if err != nil {
			return err
		}
		r.opts.Trail.Note(dir)
		if !isDir(dir) {
			r.rep.warnf("%s: rootChain root %q (%s) is not a directory; skipped", rc.File, root, dir)
			ch.Excluded = append(ch.Excluded, Excluded{Dir: dir, Reason: "rootChain root is not a directory"})
			continue
		}
		reason := ReasonInjected
		if !fsx.Contains(dir, r.p) {
			reason = ReasonInjected + " (outside containment)"
			foreign[dir] = true
		}
		cs := contextsAt(Domain{Dir: dir, Reason: reason}, slug, r.opts.Roots(), r.opts.Trail)
		if len(cs) == 0 {
			ch.Excluded = append(ch.Excluded, Excluded{Dir: dir, Reason: "rootChain root has no context for " + slug})
		}
		for _, c := range cs {
			if !seen[c.Dir] {
				seen[c.Dir] = true
				listed = append(listed, c)
			}
		}
	}
	ch.Injected = append(ch.Injected, listed...)
	var final []Context
	switch rc.Mode {
	case ModeExplicit:
		final = listed
		if n := len(ch.Default); n > 0 && !seen[ch.Default[n-1].Dir] {
			final = append(final, ch.Default[n-1])
			seen[ch.Default[n-1].Dir] = true
		}
		for _, c := range ch.Default {
			if !seen[c.Dir] {
				ch.Excluded = append(ch.Excluded, Excluded{Dir: c.Dir, Reason: "explicit rootChain: not listed"})
			}
		}
	case ModeHybrid:
		final = append([]Context{}, ch.Default...)
		for _, c := range ch.Default {
			seen[c.Dir] = true
		}
		for _, c := range listed {
			if !inContexts(ch.Default, c.Dir) {
				final = append(final, c)
			}
		}
	}
	sortContexts(final)
	// Foreign roots (accepted only because containment is off) go before
	// P's own contexts, so they never outrank the agent's own context
	// whatever the directory names; the stable sort keeps depth, then path,
	// order within each group.
	sort.SliceStable(final, func(i, j int) bool { return foreign[final[i].Domain] && !foreign[final[j].Domain] })
	ch.Contexts = final
	return nil
}

func inContexts(cs []Context, dir string) bool {
	for _, c := range cs {
		if c.Dir == dir {
			return true
		}
	}
	return false
}

// IsValidation reports whether err is a rootChain validation or
// containment failure (exit code 3 in the CLI).
func IsValidation(err error) bool {
	var ce *ContainmentError
	var ve *ValidationError
	return errors.As(err, &ce) || errors.As(err, &ve)
}
