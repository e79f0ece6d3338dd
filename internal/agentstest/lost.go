package agentstest

import (
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/triad"
)

// Lost returns the JSON pointers (layer file + pointer) of the array
// elements of layers that merged does not hold: the no-loss check of the
// merge. An element is held when merged has, in the same array, an element
// canonically equal to it, or an object with the same match key (see
// [triad.KeyOf]) that has every member it has and, recursively, holds every
// element of each of its arrays (scalar values may differ: a later layer
// wins). Distinct elements of one layer must be held by distinct merged
// elements, since nothing merges within a layer. Directives (top-level
// inherits and rootChain) and notes and extensions, which the contract takes
// whole from one layer, are not checked.
func Lost(layers []triad.Layer, merged *triad.Value) []string {
	var lost []string
	for _, l := range layers {
		if l.Doc == nil || l.Doc.Kind != triad.Object {
			continue
		}
		for _, mem := range l.Doc.Members {
			switch mem.Key {
			case "inherits", "rootChain", "notes", "extensions", "slug":
				continue
			}
			lost = append(lost, lostIn(mem.Value, merged.Get(mem.Key), mem.Key, "", l.File+"#/"+mem.Key)...)
		}
	}
	return lost
}

// lostIn compares a layer's value at one place with the merged value there.
func lostIn(src, dst *triad.Value, field, parent, ptr string) []string {
	if src == nil || dst == nil || src.Kind != dst.Kind {
		return nil // scalars and kind changes: a later layer wins
	}
	switch src.Kind {
	case triad.Object:
		var out []string
		for _, m := range src.Members {
			if m.Key == "notes" || m.Key == "extensions" {
				continue
			}
			out = append(out, lostIn(m.Value, dst.Get(m.Key), m.Key, field, ptr+"/"+m.Key)...)
		}
		return out
	case triad.Array:
		return lostElements(src, dst, field, parent, ptr)
	}
	return nil
}

func lostElements(src, dst *triad.Value, field, parent, ptr string) []string {
	used := map[int]bool{}
	seen := map[string]bool{}
	keys := map[string]int{}
	var rest []int
	// First the elements the merged array holds verbatim, then the others
	// by key; an element whose key is not unique in its layer can only be
	// held verbatim, since it never merges.
	for i, el := range src.Items {
		if el.Kind == triad.String && strings.TrimSpace(el.Text) == "" {
			continue
		}
		c := triad.CanonicalString(el)
		if seen[c] {
			continue // an exact duplicate within the layer
		}
		seen[c] = true
		if k, ok := triad.KeyOf(field, parent, el); ok && el.Kind == triad.Object {
			keys[k]++
		}
		if j := find(dst, used, func(m *triad.Value) bool { return triad.CanonicalString(m) == c }); j < 0 {
			rest = append(rest, i)
		}
	}
	var out []string
	for _, i := range rest {
		el := src.Items[i]
		k, ok := triad.KeyOf(field, parent, el)
		if !ok || el.Kind != triad.Object || keys[k] != 1 || find(dst, used, func(m *triad.Value) bool { return holds(m, el, field, parent) }) < 0 {
			out = append(out, ptr+"/"+strconv.Itoa(i))
		}
	}
	return out
}

// find marks and returns the first unused element of dst that ok accepts,
// or -1.
func find(dst *triad.Value, used map[int]bool, ok func(*triad.Value) bool) int {
	for j, m := range dst.Items {
		if !used[j] && ok(m) {
			used[j] = true
			return j
		}
	}
	return -1
}

// holds reports whether merged element m holds source element e.
func holds(m, e *triad.Value, field, parent string) bool {
	if m.Kind != triad.Object {
		return false
	}
	ke, ok1 := triad.KeyOf(field, parent, e)
	km, ok2 := triad.KeyOf(field, parent, m)
	if !ok1 || !ok2 || ke != km {
		return false
	}
	switch field {
	case "milestones", "horizons", "sections", "backlog":
		// CLIA knows these by title: a merged element with another title
		// (a positional id such as "near-1" reused) is another item.
		te, tm := e.Get("title"), m.Get("title")
		if te != nil && tm != nil && !te.IsEmpty() && !tm.IsEmpty() && te.Text != tm.Text {
			return false
		}
	}
	for _, mem := range e.Members {
		if mem.Value.IsEmpty() || mem.Key == "notes" || mem.Key == "extensions" {
			continue
		}
		got := m.Get(mem.Key)
		if got == nil || got.IsEmpty() {
			return false
		}
		if len(lostIn(mem.Value, got, mem.Key, field, "")) > 0 {
			return false
		}
	}
	return true
}
