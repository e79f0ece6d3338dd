// Package triadschema validates triad documents against CLIA's published
// JSON Schemas (clia-org/clia-agent-cli .clia/schemas/triads/, MIT
// licensed; shipped in schemas/ with their license), with
// github.com/google/jsonschema-go.
//
// The validator stops at a document's first violation, and which one is
// first depends on map order. [Validate] reports every violation instead:
// where a value fails, it validates each of the value's members and items
// against its own part of the schema, and reports the value itself only
// when none of them fails (a missing required key, an unknown key, a wrong
// type), each at the JSON Pointer of the value it is about.
package triadschema

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentlineage/lineage/triad"
)

//go:embed schemas/*.json
var files embed.FS

// schemaFile names the shipped schema of a kind.
func schemaFile(k triad.DocKind) string { return "triads." + string(k) + ".schema.json" }

// fileOf maps the name a reference uses to the shipped file: the kinds'
// schemas refer to "triads.core.json" (the agenda schema also to
// "triads.core.v0.json", which CLIA does not publish: the same
// definitions), and each schema's $id names it without "triads.".
func fileOf(name string) string {
	switch {
	case strings.HasPrefix(name, "triads.core"), name == "core.json":
		return "triads.core.json"
	case !strings.HasPrefix(name, "triads."):
		return "triads." + name
	}
	return name
}

// Violation is one way a document does not conform: the JSON Pointer of the
// value it is about ("" for the document) and what the validator says.
type Violation struct {
	Pointer string
	Message string
}

// schemas holds the shipped schemas, each as parsed for the validator and
// as plain JSON for walking, and the validators built so far, by location.
type schemas struct {
	raw map[string]any // file → its JSON
	ids map[string]string

	mu       sync.Mutex
	resolved map[string]*jsonschema.Resolved // "file#pointer" → validator
}

var loaded = sync.OnceValues(func() (*schemas, error) {
	s := &schemas{raw: map[string]any{}, ids: map[string]string{}, resolved: map[string]*jsonschema.Resolved{}}
	entries, err := files.ReadDir("schemas")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := files.ReadFile("schemas/" + e.Name())
		if err != nil {
			return nil, err
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		s.raw[e.Name()] = v
		id, _ := v["$id"].(string)
		s.ids[e.Name()] = id
	}
	return s, nil
})

func load(name string) (*jsonschema.Schema, error) {
	data, err := files.ReadFile("schemas/" + name)
	if err != nil {
		return nil, err
	}
	var sc jsonschema.Schema
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &sc, nil
}

// validator returns the validator of the schema at pointer ptr of file:
// a schema that is nothing but a reference to it, resolved once.
func (s *schemas) validator(file, ptr string) (*jsonschema.Resolved, error) {
	key := file + "#" + ptr
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.resolved[key]; ok {
		return r, nil
	}
	ref := &jsonschema.Schema{Schema: "https://json-schema.org/draft/2020-12/schema", Ref: s.ids[file] + "#" + ptr}
	r, err := ref.Resolve(&jsonschema.ResolveOptions{
		BaseURI: "https://lineage.invalid/ref.json",
		Loader:  func(u *url.URL) (*jsonschema.Schema, error) { return load(fileOf(path.Base(u.Path))) },
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	s.resolved[key] = r
	return r, nil
}

// Validate checks doc, a document of kind, against CLIA's schema of that
// kind and returns every violation (none when it conforms), ordered by
// pointer.
func Validate(kind triad.DocKind, doc *triad.Value) ([]Violation, error) {
	s, err := loaded()
	if err != nil {
		return nil, err
	}
	file := schemaFile(kind)
	if _, ok := s.raw[file]; !ok {
		return nil, fmt.Errorf("no schema for kind %q", kind)
	}
	var instance any
	if err := json.Unmarshal(triad.Encode(doc, triad.EncodeOptions{Compact: true}), &instance); err != nil {
		return nil, err
	}
	w := &walk{s: s}
	w.collect(instance, file, "", "")
	if w.err != nil {
		return nil, w.err
	}
	slices.SortStableFunc(w.out, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
	return w.out, nil
}

type walk struct {
	s   *schemas
	out []Violation
	err error
}

// collect validates inst against the schema at sptr of file and records its
// violations at iptr.
func (w *walk) collect(inst any, file, sptr, iptr string) {
	if w.err != nil {
		return
	}
	r, err := w.s.validator(file, sptr)
	if err != nil {
		w.err = err
		return
	}
	verr := r.Validate(inst)
	if verr == nil {
		return
	}
	file, sptr, node := w.s.follow(file, sptr)
	before := len(w.out)
	if alts, ok := node["oneOf"].([]any); ok {
		w.oneOf(inst, alts, file, sptr, iptr)
		return
	}
	if _, combined := firstKey(node, "allOf", "anyOf", "not", "if"); !combined {
		switch v := inst.(type) {
		case map[string]any:
			w.object(v, node, file, sptr, iptr)
		case []any:
			if _, ok := node["items"].(map[string]any); ok {
				for i, it := range v {
					w.collect(it, file, sptr+"/items", fmt.Sprintf("%s/%d", iptr, i))
				}
			}
		}
	}
	if len(w.out) == before {
		w.out = append(w.out, Violation{iptr, message(verr)})
	}
}

// object records the violations of an object's own keys (required, not
// allowed) and collects those of each member.
func (w *walk) object(v map[string]any, node map[string]any, file, sptr, iptr string) {
	props, _ := node["properties"].(map[string]any)
	var missing []string
	if req, ok := node["required"].([]any); ok {
		for _, k := range req {
			if name, ok := k.(string); ok {
				if _, has := v[name]; !has {
					missing = append(missing, name)
				}
			}
		}
	}
	if len(missing) > 0 {
		w.out = append(w.out, Violation{iptr, fmt.Sprintf("required: missing properties: %q", missing)})
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var extra []string
	for _, k := range keys {
		esc := strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		switch ap := node["additionalProperties"].(type) {
		case nil, map[string]any, bool:
			if _, ok := props[k]; ok {
				w.collect(v[k], file, sptr+"/properties/"+esc, iptr+"/"+esc)
			} else if ap == false {
				extra = append(extra, k)
			} else if _, ok := ap.(map[string]any); ok {
				w.collect(v[k], file, sptr+"/additionalProperties", iptr+"/"+esc)
			}
		}
	}
	if len(extra) > 0 {
		w.out = append(w.out, Violation{iptr, fmt.Sprintf("unexpected additional properties %q", extra)})
	}
}

// follow returns the schema at sptr of file, after the references it is
// made of.
func (s *schemas) follow(file, sptr string) (string, string, map[string]any) {
	for range 32 {
		node, _ := pointer(s.raw[file], sptr).(map[string]any)
		ref, ok := node["$ref"].(string)
		if !ok {
			return file, sptr, node
		}
		target, frag, _ := strings.Cut(ref, "#")
		if target != "" {
			file = fileOf(path.Base(target))
		}
		sptr = frag
	}
	return file, sptr, nil
}

// pointer returns the value at a JSON Pointer of v, or nil.
func pointer(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			v = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func firstKey(node map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if _, ok := node[k]; ok {
			return k, true
		}
	}
	return "", false
}

// oneOf reports a value that matches none of a oneOf's alternatives (or
// more than one) by the violations of the alternative it comes closest to
// (the fewest; the first of equals), each saying which alternative that is.
func (w *walk) oneOf(inst any, alts []any, file, sptr, iptr string) {
	var best []Violation
	bestAt := -1
	for i := range alts {
		sub := &walk{s: w.s}
		sub.collect(inst, file, fmt.Sprintf("%s/oneOf/%d", sptr, i), iptr)
		if sub.err != nil {
			w.err = sub.err
			return
		}
		if len(sub.out) > 0 && (bestAt < 0 || len(sub.out) < len(best)) {
			best, bestAt = sub.out, i
		}
	}
	if bestAt < 0 {
		w.out = append(w.out, Violation{iptr, "matches more than one of " + refNames(alts)})
		return
	}
	name := refNames(alts[bestAt : bestAt+1])
	for _, v := range best {
		v.Message = fmt.Sprintf("as %s (the closest of %s): %s", name, refNames(alts), v.Message)
		w.out = append(w.out, v)
	}
}

// refNames names the alternatives of a oneOf by the definitions they refer
// to (the validator would print the schemas' addresses).
func refNames(alts []any) string {
	var names []string
	for i, a := range alts {
		ref, _ := a.(map[string]any)["$ref"].(string)
		if ref == "" {
			names = append(names, fmt.Sprintf("alternative %d", i+1))
			continue
		}
		names = append(names, path.Base(ref))
	}
	return strings.Join(names, ", ")
}

// message is the validator's error without the "validating <schema>: "
// prefixes it adds at every level. A property that unevaluatedProperties
// (or additionalProperties) forbids is said so: the validator says only
// "not: validated against <anonymous schema>".
func message(err error) string {
	msg, last := err.Error(), ""
	for strings.HasPrefix(msg, "validating ") {
		where, rest, ok := strings.Cut(strings.TrimPrefix(msg, "validating "), ": ")
		if !ok {
			break
		}
		msg, last = rest, where
	}
	for _, kw := range []string{"unevaluatedProperties", "additionalProperties"} {
		if strings.HasSuffix(last, "/"+kw) && strings.HasPrefix(msg, "not: ") {
			return kw + ": a property the schema does not allow here"
		}
	}
	return msg
}
