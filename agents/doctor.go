package agents

import (
	"fmt"

	"github.com/agentlineage/lineage/triad"
)

// Diagnosis is the doctor's report for one slug at one path.
type Diagnosis struct {
	Slug     string   `json:"slug"`
	Path     string   `json:"path"`
	Status   string   `json:"status"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Info     []string `json:"info"`
}

// Doctor checks what a profile of slug at opts.Path would rely on: invalid
// JSON (error), no write target (error), rootChain problems (error),
// unknown schema versions, several candidates in one directory, dangling,
// outside and URL inherits (warnings), agent documents without inherits,
// which therefore miss the root directives document (info).
func Doctor(opts Options, slug string) (Diagnosis, error) {
	if err := ValidateSlug(slug); err != nil {
		return Diagnosis{}, err
	}
	r, err := newResolver(opts)
	if err != nil {
		return Diagnosis{}, err
	}
	ch, err := r.resolve(slug)
	if err != nil {
		if !IsValidation(err) {
			return Diagnosis{}, err
		}
		r.rep.errorf("%v", err)
	}
	if ch.Empty() {
		r.rep.errorf("no context for slug %q visible from %s", slug, r.p)
	}
	if _, ok := RepoRoot(r.p); !ok {
		r.rep.errorf("no write target: no .git directory or file at or above %s (journal needs --agents-dir)", r.p)
	}
	for _, k := range triad.Kinds {
		ch.Layers(k)
	}
	for _, c := range ch.Contexts {
		r.rep.infof("context %s %s (%s)", c.Prefix, c.Dir, c.Reason)
		if c.Files.Agent == "" {
			continue
		}
		if doc, err := r.docs.load(c.Files.Agent, &r.rep); err == nil && len(Inherits(doc)) == 0 {
			r.rep.infof("%s: no inherits: the root directives document is not inherited", c.Files.Agent)
		}
	}
	rep := r.rep.Sorted()
	return Diagnosis{Slug: slug, Path: r.p, Status: rep.Status(), Errors: rep.Errors, Warnings: rep.Warnings, Info: rep.Info}, nil
}

// Lint runs [Doctor] for every agent found under the workspace root of
// opts.Path, with P set to the agent's domain root.
func Lint(opts Options) ([]Diagnosis, error) {
	homes, err := FindAll(opts)
	if err != nil {
		return nil, err
	}
	out := []Diagnosis{}
	for _, h := range homes {
		o := opts
		o.Path = h.Domain
		d, err := Doctor(o, h.Slug)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", h.Slug, h.Domain, err)
		}
		out = append(out, d)
	}
	return out, nil
}
