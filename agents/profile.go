package agents

import (
	"fmt"

	"github.com/agentlineage/lineage/triad"
)

// Profile is the merged document of one kind over a chain.
type Profile struct {
	Kind   triad.DocKind
	Chain  *Chain
	Layers []triad.Layer
	triad.Result
}

// BuildProfile resolves the chain of slug at opts.Path and merges its
// documents of kind.
func BuildProfile(opts Options, slug string, kind triad.DocKind) (*Profile, error) {
	ch, err := Resolve(opts, slug)
	if err != nil {
		return nil, err
	}
	return ch.Profile(kind), nil
}

// Profile merges the chain's documents of kind.
func (c *Chain) Profile(kind triad.DocKind) *Profile {
	layers := c.Layers(kind)
	return &Profile{Kind: kind, Chain: c, Layers: layers, Result: triad.Merge(c.Slug, layers)}
}

// RequireProfile is [Chain.Profile] for callers that need at least one
// context: a chain with none is a *NoContextError.
func (c *Chain) RequireProfile(kind triad.DocKind) (*Profile, error) {
	if c.Empty() {
		return nil, &NoContextError{Slug: c.Slug, Path: c.Path}
	}
	return c.Profile(kind), nil
}

// DocumentOptions select what a profile document carries besides the
// merged values.
type DocumentOptions struct {
	// ContextChain adds "contextChain" ([Profile.WithContextChain]).
	ContextChain bool
	// Explain wraps the document as {merged, provenance} ([Profile.Explain]).
	Explain bool
}

// Document is the merged document with what o asks for: the document
// `lineage agents profile` prints and the MCP agents_profile tool returns.
func (p *Profile) Document(o DocumentOptions) *triad.Value {
	merged := p.Merged
	if o.ContextChain {
		merged = p.WithContextChain()
	}
	if o.Explain {
		merged = p.Explain(merged)
	}
	return merged
}

// WithContextChain returns a copy of the merged document with
// "contextChain": [{"prefix","path"}] listing the chain's contexts.
func (p *Profile) WithContextChain() *triad.Value {
	out := p.Merged.Clone()
	arr := triad.NewArray()
	for _, c := range p.Chain.Contexts {
		o := triad.NewObject()
		o.Set("prefix", triad.NewString(c.Prefix))
		o.Set("path", triad.NewString(c.Dir))
		arr.Items = append(arr.Items, o)
	}
	out.Set("contextChain", arr)
	return out
}

// Explain returns {"merged": …, "provenance": {pointer: file}}.
func (p *Profile) Explain(merged *triad.Value) *triad.Value {
	out := triad.NewObject()
	out.Set("merged", merged)
	prov := triad.NewObject()
	for _, ptr := range p.SortedPointers() {
		prov.Members = append(prov.Members, triad.Member{Key: ptr, Value: triad.NewString(p.Provenance[ptr])})
	}
	out.Set("provenance", prov)
	return out
}

// Empty reports whether no context exists for the slug.
func (c *Chain) Empty() bool { return len(c.Contexts) == 0 }

// NoContextError is returned by callers that need at least one context.
type NoContextError struct{ Slug, Path string }

func (e *NoContextError) Error() string {
	return fmt.Sprintf("no context for slug %q visible from %s", e.Slug, e.Path)
}
