package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Reasons a directory joins a chain.
const (
	ReasonAncestor  = "ancestor"
	ReasonSubmodule = "submodule"
	ReasonInjected  = "injected"
)

// Domain is a directory that may hold agents roots, with why it is in the
// chain.
type Domain struct {
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

// Excluded is a candidate left out of a chain and why.
type Excluded struct {
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

// DefaultDomains returns the default lineage chain of p, global → local: the
// ancestors of p and every submodule declared in an ancestor's .gitmodules
// that contains p. Sibling submodules are returned as excluded; unreadable
// .gitmodules files as warnings.
func DefaultDomains(p string) (domains []Domain, excluded []Excluded, warnings []string) {
	anc := fsx.Ancestors(p)
	index := map[string]int{}
	for _, a := range anc {
		index[a] = len(domains)
		domains = append(domains, Domain{Dir: a, Reason: ReasonAncestor})
	}
	for _, a := range anc {
		gm := filepath.Join(a, ".gitmodules")
		// Type first, then a non-blocking open: a FIFO named .gitmodules
		// must not hang every command.
		data, err := fsx.ReadRegular(gm, MaxGitmodulesBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: ignored: %v", fsx.LineSafe(gm), err))
			continue
		}
		paths, err := ParseGitmodules(data)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v", fsx.LineSafe(gm), err))
			continue
		}
		for _, sp := range paths {
			cand := fsx.Abs(a, sp)
			if cand == a || !fsx.Contains(a, cand) {
				continue
			}
			if !fsx.Contains(cand, p) {
				excluded = append(excluded, Excluded{Dir: cand, Reason: "sibling submodule: does not contain " + p})
				continue
			}
			if i, ok := index[cand]; ok {
				domains[i].Reason = ReasonSubmodule
				continue
			}
			index[cand] = len(domains)
			domains = append(domains, Domain{Dir: cand, Reason: ReasonSubmodule})
		}
	}
	sortDomains(domains)
	sort.Slice(excluded, func(i, j int) bool { return excluded[i].Dir < excluded[j].Dir })
	return domains, excluded, warnings
}

func sortDomains(ds []Domain) {
	sort.SliceStable(ds, func(i, j int) bool {
		di, dj := depth(ds[i].Dir), depth(ds[j].Dir)
		if di != dj {
			return di < dj
		}
		return ds[i].Dir < ds[j].Dir
	})
}

// Files names a context's chosen document of each kind (absolute paths).
type Files struct {
	Agent  string `json:"agent,omitempty"`
	Agenda string `json:"agenda,omitempty"`
	Agency string `json:"agency,omitempty"`
}

// Get returns the file of kind k, or "".
func (f Files) Get(k triad.DocKind) string {
	switch k {
	case triad.Agent:
		return f.Agent
	case triad.Agenda:
		return f.Agenda
	}
	return f.Agency
}

// Context is one <domain>/<agents root>/<slug>/ directory holding at least
// one triad document.
type Context struct {
	Dir    string `json:"dir"`
	Prefix string `json:"prefix"`
	Reason string `json:"reason"`
	Files  Files  `json:"files"`
	// Domain is the domain root the context belongs to.
	Domain string `json:"-"`
	// Ignored lists the candidates that lost the selection, per kind.
	Ignored map[triad.DocKind][]string `json:"-"`
}

// contextsAt returns the contexts of slug under domain, one per agents root
// that holds a triad document there, in agents-root order; trail (when
// set) notes each context directory looked at.
func contextsAt(d Domain, slug string, roots []string, trail *fsx.Trail) []Context {
	var out []Context
	for _, r := range roots {
		dir := filepath.Join(d.Dir, r, slug)
		trail.Note(dir)
		if !isDir(dir) {
			continue
		}
		sel, err := triad.SelectDir(dir)
		if err != nil || sel.Empty() {
			continue
		}
		out = append(out, newContext(d, dir, sel))
	}
	return out
}

func newContext(d Domain, dir string, sel triad.Selection) Context {
	c := Context{Dir: dir, Reason: d.Reason, Domain: d.Dir, Ignored: sel.Ignored}
	path := func(k triad.DocKind) string {
		if n, ok := sel.Files[k]; ok {
			return filepath.Join(dir, n)
		}
		return ""
	}
	c.Files = Files{Agent: path(triad.Agent), Agenda: path(triad.Agenda), Agency: path(triad.Agency)}
	for _, k := range triad.Kinds {
		if n, ok := sel.Files[k]; ok {
			c.Prefix = triad.Prefix(n)
			break
		}
	}
	return c
}

// sortContexts orders contexts global → local by their domain (depth, then
// path); contexts of one domain keep agents-root order.
func sortContexts(cs []Context) {
	sort.SliceStable(cs, func(i, j int) bool {
		di, dj := depth(cs[i].Domain), depth(cs[j].Domain)
		if di != dj {
			return di < dj
		}
		return cs[i].Domain < cs[j].Domain
	})
}
