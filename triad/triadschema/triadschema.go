// Package triadschema validates triad documents against CLIA's published
// JSON Schemas (clia-org/clia-agent-cli .clia/schemas/triads/, MIT
// licensed; shipped in schemas/ with their license), with
// github.com/google/jsonschema-go.
package triadschema

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentlineage/lineage/triad"
)

//go:embed schemas/*.json
var files embed.FS

// schemaFile names the shipped schema of a kind.
func schemaFile(k triad.DocKind) string { return "triads." + string(k) + ".schema.json" }

// resolved holds each kind's resolved schema, built on first use.
var resolved = sync.OnceValues(func() (map[triad.DocKind]*jsonschema.Resolved, error) {
	load := func(name string) (*jsonschema.Schema, error) {
		data, err := files.ReadFile("schemas/" + name)
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &s, nil
	}
	// The kinds' schemas refer to "triads.core.json#/$defs/…" (the agenda
	// schema also to "triads.core.v0.json", which CLIA does not publish:
	// the same definitions), relative to their own $id.
	loader := func(u *url.URL) (*jsonschema.Schema, error) {
		name := path.Base(u.Path)
		if strings.HasPrefix(name, "triads.core") {
			name = "triads.core.json"
		}
		return load(name)
	}
	out := map[triad.DocKind]*jsonschema.Resolved{}
	for _, k := range triad.Kinds {
		name := schemaFile(k)
		s, err := load(name)
		if err != nil {
			return nil, err
		}
		r, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: "https://wrkstrm.dev/schemas/triads/" + name, Loader: loader})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[k] = r
	}
	return out, nil
})

// Validate checks doc, a document of kind, against CLIA's schema of that
// kind and returns what the validator reports ("" when it conforms).
func Validate(kind triad.DocKind, doc *triad.Value) (string, error) {
	rs, err := resolved()
	if err != nil {
		return "", err
	}
	r, ok := rs[kind]
	if !ok {
		return "", fmt.Errorf("no schema for kind %q", kind)
	}
	var instance any
	if err := json.Unmarshal(triad.Encode(doc, triad.EncodeOptions{Compact: true}), &instance); err != nil {
		return "", err
	}
	if err := r.Validate(instance); err != nil {
		// "validating <schema URL>: " says nothing the caller does not know.
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, "validating https://wrkstrm.dev/schemas/triads/"); ok {
			if _, after, ok := strings.Cut(rest, ": "); ok {
				msg = after
			}
		}
		return msg, nil
	}
	return "", nil
}
