package agents

import (
	"fmt"
	"path/filepath"
	"strings"

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
// outside and URL inherits, duplicate keys, inherits that are not arrays of
// strings, guardrails repeated across layers, missing persona and
// system-instructions files, a missing or dangling roster row, content read
// from a sibling submodule, a stale lock file or an interrupted migrate
// (warnings), the .bak files beside the chain's documents (info), and an agent whose merged status is
// active but whose inheritance does not reach the root directives document
// (warning; see [ReachesRootDirectives]). A slug with no context at all is
// a *NoContextError, as for every other read of a slug, returned with the
// report that says so (status error, and the candidate contexts excluded
// as info) for the caller to print.
func Doctor(opts Options, slug string) (Diagnosis, error) {
	if err := ValidateSlug(slug); err != nil {
		return Diagnosis{}, err
	}
	r, err := newResolver(opts)
	if err != nil {
		return Diagnosis{}, err
	}
	r.docs.raw = map[string][]byte{}
	ch, err := r.resolve(slug)
	if err != nil {
		if !IsValidation(err) {
			return Diagnosis{}, err
		}
		r.rep.errorf("%v", err)
	}
	if ch.Empty() {
		nc := &NoContextError{Slug: slug, Path: r.p}
		r.rep.errorf("%v", nc)
		for _, e := range ch.Excluded {
			r.rep.infof("excluded %s: %s", e.Dir, e.Reason)
		}
		rep := r.rep.Sorted()
		return Diagnosis{Slug: slug, Path: r.p, Status: rep.Status(), Errors: rep.Errors, Warnings: rep.Warnings, Info: rep.Info}, nc
	}
	if _, ok := RepoRoot(r.p); !ok {
		r.rep.errorf("no write target: no .git directory or file at or above %s (journal needs --agents-dir)", r.p)
	}
	for _, k := range []triad.DocKind{triad.Agenda, triad.Agency} {
		layers := ch.Layers(k)
		siblingFindings(r.p, ch, layers, &r.rep)
		if opts.CheckSchema {
			schemaFindings(k, layers, &r.docs, &r.rep)
		}
	}
	agent := ch.Profile(triad.Agent)
	if opts.CheckSchema {
		schemaFindings(triad.Agent, agent.Layers, &r.docs, &r.rep)
	}
	if n := len(agent.Layers); n > 0 && isActive(agent.Merged) && !ReachesRootDirectives(r.p, agent.Layers) {
		r.rep.warnf("%s: status is active but its inheritance does not reach the root directives document (%s)",
			agent.Layers[n-1].File, rootDirectivesDir(r.p)+string(filepath.Separator))
	}
	siblingFindings(r.p, ch, agent.Layers, &r.rep)
	guardrailFindings(agent.Layers, &r.rep)
	local := ch.Contexts[len(ch.Contexts)-1]
	fileRefFindings(agent, &r.rep)
	if opts.CheckCLIA {
		cliaFindings(local, agent, &r.docs, &r.rep)
	}
	if repo, ok := RepoRoot(local.Dir); ok {
		if rel, err := filepath.Rel(repo, filepath.Dir(local.Dir)); err == nil && !strings.HasPrefix(rel, "..") {
			rosterFindings(repo, slug, rel, &r.rep)
		}
	}
	lockFindings(r.p, ch, &r.rep)
	backupFindings(ch, &r.rep)
	for _, c := range ch.Contexts {
		r.rep.infof("context %s %s (%s)", c.Prefix, c.Dir, c.Reason)
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

// RootDirectivesContext is the folder, under the workspace root, of the root
// directives documents every active agent is expected to inherit.
const RootDirectivesContext = ".clia/agents/root"

func rootDirectivesDir(p string) string {
	return filepath.Join(workspaceOrSelf(p), RootDirectivesContext)
}

// ReachesRootDirectives reports whether one of the layers of an agent's
// merge at p — its own documents or any document its inherits reach — is a
// triad document directly in <workspace root of p>/.clia/agents/root/. The
// root directives document itself reaches it trivially.
func ReachesRootDirectives(p string, layers []triad.Layer) bool {
	dir := realPath(rootDirectivesDir(p))
	for _, l := range layers {
		f := realPath(l.File)
		if _, _, ok := triad.Match(filepath.Base(f)); ok && filepath.Dir(f) == dir {
			return true
		}
	}
	return false
}

// isActive reports whether a merged agent's status is "active" (any case).
func isActive(merged *triad.Value) bool {
	return strings.EqualFold(strings.TrimSpace(merged.Str("status")), "active")
}
