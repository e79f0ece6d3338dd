package triad

import (
	"strings"

	"github.com/agentlineage/lineage/internal/canon"
)

// unionIndex is what the union of one merged array knows about its
// elements: the strings it holds, the canonical JSON of its unkeyed
// elements, and the positions of its keyed elements by key.
type unionIndex struct {
	strs  map[string]bool
	canon map[string]bool
	byKey map[string][]int
	// keyedCanon caches the canonical JSON of keyed elements by position;
	// "" means not computed yet or changed by a merge since.
	keyedCanon map[int]string
}

func (m *merger) index(dst *Value, field, parent string) *unionIndex {
	if dst.union != nil {
		return dst.union
	}
	u := &unionIndex{strs: map[string]bool{}, canon: map[string]bool{}, byKey: map[string][]int{}, keyedCanon: map[int]string{}}
	for i, it := range dst.Items {
		u.note(it, i, field, parent)
	}
	dst.union = u
	return u
}

// note records the element at position i.
func (u *unionIndex) note(el *Value, i int, field, parent string) {
	if el.Kind == String {
		u.strs[el.Text] = true
		return
	}
	if k, ok := objectKey(field, parent, el); ok {
		u.byKey[k] = append(u.byKey[k], i)
		return
	}
	u.canon[CanonicalString(el)] = true
}

func (u *unionIndex) canonAt(dst *Value, i int) string {
	c := u.keyedCanon[i]
	if c == "" {
		c = CanonicalString(dst.Items[i])
		u.keyedCanon[i] = c
	}
	return c
}

// union adds src's elements to dst. Strings: blank ones are dropped, exact
// duplicates too. Unkeyed elements: canonical duplicates are dropped. A keyed
// element whose key is unique in src merges into the one element of dst it
// is the same item as (see oneItem); any other keyed element is appended
// unless a canonical duplicate of an element with its key. Within one layer
// nothing merges, so no element of any layer is lost.
func (m *merger) union(dst, src *Value, field, parent, file string) {
	u := m.index(dst, field, parent)
	var srcKeys map[string]int
	if isKeyedField(field, parent) {
		srcKeys = map[string]int{}
		for _, el := range src.Items {
			if k, ok := objectKey(field, parent, el); ok {
				srcKeys[k]++
			}
		}
	}
	for _, el := range src.Items {
		switch k, keyed := objectKey(field, parent, el); {
		case el.Kind == String:
			if strings.TrimSpace(el.Text) == "" || u.strs[el.Text] {
				continue
			}
			u.strs[el.Text] = true
		case keyed:
			at := u.byKey[k]
			c := CanonicalString(el)
			if u.hasCanon(dst, at, c) {
				continue
			}
			if i, ok := oneItem(dst, at, el, field); ok && srcKeys[k] == 1 {
				m.mergeElement(dst.Items[i], el, file, field)
				delete(u.keyedCanon, i)
				continue
			}
			u.byKey[k] = append(at, len(dst.Items))
			u.keyedCanon[len(dst.Items)] = c
		default:
			c := CanonicalString(el)
			if u.canon[c] {
				continue
			}
			u.canon[c] = true
		}
		dst.Items = append(dst.Items, m.mark(el.Clone(), file))
	}
}

// oneItem returns the position, among the elements of dst at positions at
// (those with el's key), of the one element el is the same item as: the
// only one sameItem accepts, else the only one with el's very title. Two
// items an earlier layer kept apart under one key (different titles) thus
// take a later layer's update of either into that one, instead of listing
// the stale copy beside the new one.
func oneItem(dst *Value, at []int, el *Value, field string) (int, bool) {
	var same []int
	for _, i := range at {
		if sameItem(field, dst.Items[i], el) {
			same = append(same, i)
		}
	}
	if len(same) == 1 {
		return same[0], true
	}
	t := itemTitle(field, el)
	if t == "" {
		return 0, false
	}
	found, n := 0, 0
	for _, i := range same {
		if itemTitle(field, dst.Items[i]) == t {
			found, n = i, n+1
		}
	}
	return found, n == 1
}

// sameItem reports whether two elements with one key are one item by
// CLIA's rules: its merger knows milestones, horizons, sections and backlog
// items by their title, so two milestones with the positional id "near-1"
// but different titles are two items, both kept. Elements of which one has
// no title are one item by key alone.
func sameItem(field string, a, b *Value) bool {
	switch field {
	case "milestones", "horizons", "sections", "backlog":
		ta, tb := itemTitle(field, a), itemTitle(field, b)
		return ta == "" || tb == "" || ta == tb
	}
	return true
}

// itemTitle is the title an item is known by: its title, or for a horizon
// in the schema's {key, label} shape its label, so two horizons under one
// key with different labels are two items (the later no longer overwrites
// the ancestor's label).
func itemTitle(field string, v *Value) string {
	if t := scalarText(v.Get("title")); t != "" || field != "horizons" {
		return t
	}
	return scalarText(v.Get("label"))
}

func (u *unionIndex) hasCanon(dst *Value, at []int, c string) bool {
	for _, i := range at {
		if u.canonAt(dst, i) == c {
			return true
		}
	}
	return false
}

// mergeElement merges a later layer's element into the matching merged
// element with the object rules: scalars later-wins, arrays union. An
// element taken whole so far is first opened up, so provenance names the
// file of every value inside it.
func (m *merger) mergeElement(cur, el *Value, file, field string) {
	if cur.leaf {
		open(cur, cur.from)
	}
	for _, mem := range el.Members {
		m.mergeMember(cur, mem.Key, mem.Value, file, field)
	}
}

// open turns a value reported whole (an array element) into one reported
// per value, all from file, indexed for further merging.
func open(v *Value, file string) {
	v.from, v.leaf = file, false
	switch v.Kind {
	case Object:
		v.keys = make(map[string]int, len(v.Members))
		for i, mem := range v.Members {
			v.keys[mem.Key] = i
			if wholeKeys[mem.Key] {
				mem.Value.from, mem.Value.leaf = file, true
				continue
			}
			open(mem.Value, file)
		}
	case Array:
		for _, it := range v.Items {
			it.from, it.leaf = file, true
		}
	default:
		v.leaf = true
	}
}

// objectKey is the key of an object element of a keyed array.
func objectKey(field, parent string, el *Value) (string, bool) {
	if el.Kind != Object {
		return "", false
	}
	return KeyOf(field, parent, el)
}

func isKeyedField(field, parent string) bool {
	switch field {
	case "links", "entries", "focusDomains", "milestones", "horizons", "sections", "backlog":
		return true
	case "primary", "secondary":
		return parent == "contributionMix"
	}
	return false
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
