package triad

import (
	"sort"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/internal/canon"
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
// are taken whole; arrays are stable unions (keyed arrays replace a matching
// element in place); inherits and rootChain are dropped; slug is the last
// non-empty slug of a non-inherited layer, else slug. Layers whose document
// is not an object contribute nothing. Merge never reads the clock and its
// output depends only on the layers' order and content.
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
			m.mergeMember(out, mem.Key, mem.Value, l.File, "")
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

// union adds src's elements to dst: first occurrence wins the position, a
// keyed element from a later layer replaces the earlier one in place.
func (m *merger) union(dst, src *Value, field, parent, file string) {
	idx := dst.idx
	if idx == nil {
		idx = map[string]int{}
		for i, it := range dst.Items {
			if k, ok := elementKey(field, parent, it); ok {
				idx[k] = i
			}
		}
		dst.idx = idx
	}
	for _, el := range src.Items {
		k, ok := elementKey(field, parent, el)
		if !ok {
			continue
		}
		if i, seen := idx[k]; seen {
			if strings.HasPrefix(k, "k:") {
				dst.Items[i] = m.mark(el.Clone(), file)
			}
			continue
		}
		idx[k] = len(dst.Items)
		dst.Items = append(dst.Items, m.mark(el.Clone(), file))
	}
}

// elementKey is the identity of an array element for the union; ok is false
// for elements that are dropped (blank strings).
func elementKey(field, parent string, el *Value) (string, bool) {
	if el.Kind == String {
		if strings.TrimSpace(el.Text) == "" {
			return "", false
		}
		return "s:" + el.Text, true
	}
	if el.Kind == Object {
		if k, ok := KeyOf(field, parent, el); ok {
			return "k:" + k, true
		}
	}
	return "c:" + CanonicalString(el), true
}

// KeyOf returns the match key of an element of a keyed array (see the
// spec's table), or ok=false when field is not keyed or the element carries
// none of its key fields.
func KeyOf(field, parent string, el *Value) (string, bool) {
	switch {
	case field == "links":
		return scalarText(el.Get("title")) + "|" + scalarText(el.Get("url")), true
	case field == "entries":
		if id := scalarText(el.Get("id")); id != "" {
			return "id:" + id, true
		}
		ts, title := scalarText(el.Get("timestamp")), scalarText(el.Get("title"))
		if ts == "" && title == "" {
			return "", false
		}
		return "tt:" + ts + "|" + title, true
	case parent == "contributionMix" && (field == "primary" || field == "secondary"):
		return firstKey(el, "type")
	case field == "focusDomains":
		return firstKey(el, "identifier")
	case field == "milestones" || field == "horizons" || field == "sections":
		return firstKey(el, "slug", "id", "key", "title")
	case field == "backlog":
		return firstKey(el, "slug", "title")
	}
	return "", false
}

// firstKey returns "<name>:<text>" for the first of names with a non-blank
// scalar value, so a slug never collides with an equal title.
func firstKey(el *Value, names ...string) (string, bool) {
	for _, n := range names {
		if t := scalarText(el.Get(n)); t != "" {
			if n == "id" || n == "key" {
				n = "id"
			}
			return n + ":" + t, true
		}
	}
	return "", false
}

func scalarText(v *Value) string {
	if v == nil || (v.Kind != String && v.Kind != Number) || strings.TrimSpace(v.Text) == "" {
		return ""
	}
	return v.Text
}

// CanonicalString is v's RFC 8785 canonical JSON, the identity of an array
// element that has no key. Objects with duplicate member names, which RFC
// 8785 rejects, fall back to their compact encoding with sorted keys.
func CanonicalString(v *Value) string {
	b := Encode(v, EncodeOptions{Compact: true})
	if c, err := canon.Canonicalize(b); err == nil {
		return string(c)
	}
	return string(Encode(v, EncodeOptions{Compact: true, SortKeys: true}))
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
