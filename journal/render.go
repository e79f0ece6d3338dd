package journal

import (
	"fmt"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Render is the mirrors' Markdown of slug's document of kind k seen from
// opts.Path (CLIA's `triads render`): the most local context's document, or
// with merged the merged profile. It also returns the file rendered ("" for
// a merged profile).
func Render(opts agents.Options, slug string, k triad.DocKind, merged bool) ([]byte, string, error) {
	ch, err := agents.Resolve(opts, slug)
	if err != nil {
		return nil, "", err
	}
	if ch.Empty() {
		return nil, "", &agents.NoContextError{Slug: slug, Path: ch.Path}
	}
	if merged {
		return renderers[k](ch.Profile(k).Merged, slug), "", nil
	}
	for i := len(ch.Contexts) - 1; i >= 0; i-- {
		f := ch.Contexts[i].Files.Get(k)
		if f == "" {
			continue
		}
		data, err := fsx.ReadRegular(f, agents.MaxDocumentBytes)
		if err != nil {
			return nil, "", err
		}
		doc, err := triad.Decode(f, data)
		if err != nil {
			return nil, "", err
		}
		return renderers[k](doc, slug), f, nil
	}
	return nil, "", fmt.Errorf("no %s document for %q in the chain at %s", k, slug, ch.Path)
}
