package triad

import (
	"sort"
	"strconv"
	"strings"
)

// Layer is one document in a merge, lowest precedence first.
type Layer struct {
	// File names the document in provenance (a path).
	File string
	Doc  *Value
	// Inherited layers were reached through inherits; they never contribute
	// the slug.
	Inherited bool
}

// Result is a merged document and where each of its values came from.
type Result struct {
	Merged *Value
	// Provenance maps a JSON pointer (RFC 6901) to the file its value came
	// from: one entry per scalar, per array element, per object taken whole
	// (notes, extensions) and per empty container.
	Provenance map[string]string
}

// Directive keys are consumed by the merge and never copied into its output.
var directiveKeys = map[string]bool{"inherits": true, "rootChain": true}

// wholeKeys are objects taken whole from the last layer where they are
// non-empty instead of merged key by key.
var wholeKeys = map[string]bool{"notes": true, "extensions": true}

type merger struct{}

// Merge folds layers into one document by the triad rules: scalars last
// non-empty wins; objects merge key by key, except notes and extensions which
// are taken whole; arrays are stable unions in which an element of a keyed
// array merges into the earlier element with the same key when that key is
// unique on both sides (see [KeyOf]), so no element of any layer is lost;
// inherits and rootChain (and extensions.inherits) are consumed, not copied;
// slug is the last non-empty slug of a non-inherited layer, else slug.
// Layers whose document is not an object contribute nothing. Merge never
// reads the clock and its output depends only on the layers' order and
// content.
func Merge(slug string, layers []Layer) Result {
	m := &merger{}
	out := NewObject()
	out.Members = []Member{}
	slugFile := ""
	for _, l := range layers {
		if l.Doc == nil || l.Doc.Kind != Object {
			continue
		}
		for _, mem := range l.Doc.Members {
			switch {
			case directiveKeys[mem.Key]:
				continue
			case mem.Key == "slug":
				if !l.Inherited && !mem.Value.IsEmpty() && mem.Value.Kind == String {
					slug, slugFile = mem.Value.Text, l.File
				}
				continue
			}
			m.mergeMember(out, mem.Key, withoutDirectives(mem.Key, mem.Value), l.File, "")
		}
	}
	if slug != "" {
		sv := NewString(slug)
		m.set(out, "slug", sv)
		if slugFile != "" {
			sv.from, sv.leaf = slugFile, true
		}
	}
	res := Result{Merged: out, Provenance: map[string]string{}}
	m.walk(out, "", res.Provenance)
	return res
}

// withoutDirectives drops the inherits directive from a top-level
// extensions object, so that an extensions holding only inherits counts as
// empty and never hides an earlier layer's extensions.
func withoutDirectives(key string, v *Value) *Value {
	if key != "extensions" || v.Kind != Object || v.Get("inherits") == nil {
		return v
	}
	c := &Value{Kind: Object, Members: []Member{}}
	for _, mem := range v.Members {
		if mem.Key != "inherits" {
			c.Members = append(c.Members, mem)
		}
	}
	return c
}

func isWholeEmpty(v *Value) bool {
	return v.IsEmpty() || (v.Kind == Object && len(v.Members) == 0) || (v.Kind == Array && len(v.Items) == 0)
}

func (m *merger) mark(v *Value, file string) *Value {
	v.from, v.leaf = file, true
	return v
}

// mergeMember merges src into dst[key]; parent is the key dst sits under.
func (m *merger) mergeMember(dst *Value, key string, src *Value, file, parent string) {
	if wholeKeys[key] {
		if !isWholeEmpty(src) {
			m.set(dst, key, m.mark(src.Clone(), file))
		}
		return
	}
	if src.IsEmpty() {
		return
	}
	cur := m.get(dst, key)
	switch src.Kind {
	case Object:
		if cur == nil || cur.Kind != Object {
			cur = &Value{Kind: Object, Members: []Member{}}
			cur.from = file
			m.set(dst, key, cur)
		}
		for _, mem := range src.Members {
			m.mergeMember(cur, mem.Key, mem.Value, file, key)
		}
	case Array:
		if cur == nil || cur.Kind != Array {
			cur = &Value{Kind: Array, Items: []*Value{}}
			cur.from = file
			m.set(dst, key, cur)
		}
		m.union(cur, src, key, parent, file)
	default:
		m.set(dst, key, m.mark(src.Clone(), file))
	}
}

// get and set address the members of a merged object (whose keys are
// unique) through an index, so wide documents merge in linear time.
func (m *merger) get(obj *Value, key string) *Value {
	if i, ok := obj.keys[key]; ok {
		return obj.Members[i].Value
	}
	return nil
}

func (m *merger) set(obj *Value, key string, v *Value) {
	idx := obj.keys
	if idx == nil {
		idx = map[string]int{}
		obj.keys = idx
	}
	if i, ok := idx[key]; ok {
		obj.Members[i].Value = v
		return
	}
	idx[key] = len(obj.Members)
	obj.Members = append(obj.Members, Member{Key: key, Value: v})
}

func (m *merger) walk(v *Value, ptr string, out map[string]string) {
	if v.from != "" && (v.leaf || (len(v.Members) == 0 && len(v.Items) == 0)) {
		if ptr != "" {
			out[ptr] = v.from
		}
		return
	}
	switch v.Kind {
	case Object:
		for _, mem := range v.Members {
			m.walk(mem.Value, ptr+"/"+escapePointer(mem.Key), out)
		}
	case Array:
		for i, it := range v.Items {
			m.walk(it, ptr+"/"+strconv.Itoa(i), out)
		}
	}
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// SortedPointers returns the provenance pointers in byte-wise order.
func (r Result) SortedPointers() []string {
	ps := make([]string, 0, len(r.Provenance))
	for p := range r.Provenance {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}
