package triad_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

func decode(t testing.TB, s string) *triad.Value {
	t.Helper()
	v, err := triad.Decode("test", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The checker itself finds a loss: a merged view that keeps one of two
// milestones sharing an id, or drops an item of a matched section.
func TestLostDetectsLoss(t *testing.T) {
	layers := []triad.Layer{
		{File: "a", Doc: decode(t, `{"milestones":[{"id":"near-1","t":"x"},{"id":"near-1","t":"y"}],"sections":[{"title":"P","items":["no-force-push","sign"]}]}`)},
		{File: "b", Doc: decode(t, `{"sections":[{"title":"P","items":["sign"]}]}`)},
	}
	tests := []struct{ merged, want string }{
		{`{"milestones":[{"id":"near-1","t":"x"},{"id":"near-1","t":"y"}],"sections":[{"title":"P","items":["no-force-push","sign"]}]}`, ""},
		{`{"milestones":[{"id":"near-1","t":"y"}],"sections":[{"title":"P","items":["no-force-push","sign"]}]}`, "a#/milestones/0"},
		{`{"milestones":[{"id":"near-1","t":"x"},{"id":"near-1","t":"y"}],"sections":[{"title":"P","items":["sign"]}]}`, "a#/sections/0"},
	}
	// A milestone merged into another item (same positional id, another
	// title) is lost.
	stacked := []triad.Layer{
		{File: "a", Doc: decode(t, `{"milestones":[{"id":"mid-1","title":"Ship v1"}]}`)},
		{File: "b", Doc: decode(t, `{"milestones":[{"id":"mid-1","title":"Docs site"}]}`)},
	}
	if got := agentstest.Lost(stacked, decode(t, `{"milestones":[{"id":"mid-1","title":"Docs site"}]}`)); strings.Join(got, ",") != "a#/milestones/0" {
		t.Errorf("a milestone overwritten by another with its id: Lost = %v", got)
	}
	for _, tt := range tests {
		got := strings.Join(agentstest.Lost(layers, decode(t, tt.merged)), ",")
		if got != tt.want {
			t.Errorf("Lost(%s) = %q, want %q", tt.merged, got, tt.want)
		}
	}
}

// genElement draws an object for a keyed array, with keys from a small set
// so that duplicates within and across layers are common.
func genElement(t *rapid.T, label string) *triad.Value {
	o := triad.NewObject()
	switch rapid.IntRange(0, 4).Draw(t, label+"keyKind") {
	case 0:
		o.Set("slug", triad.NewString(rapid.SampledFrom([]string{"a", "b", " "}).Draw(t, label+"slug")))
	case 1:
		o.Set("id", triad.NewString(rapid.SampledFrom([]string{"near-1", "near-2"}).Draw(t, label+"id")))
	case 2:
		o.Set("title", triad.NewString(rapid.SampledFrom([]string{"Next", "Later"}).Draw(t, label+"title")))
	case 3:
		o.Set("key", triad.NewNumber(rapid.SampledFrom([]string{"1", "2"}).Draw(t, label+"key")))
	}
	if rapid.Bool().Draw(t, label+"hasStatus") {
		o.Set("status", triad.NewString(rapid.SampledFrom([]string{"planned", "done", ""}).Draw(t, label+"status")))
	}
	if rapid.Bool().Draw(t, label+"hasItems") {
		items := triad.NewArray()
		for _, s := range rapid.SliceOfN(rapid.SampledFrom([]string{"x", "y", "z", ""}), 0, 3).Draw(t, label+"items") {
			items.Items = append(items.Items, triad.NewString(s))
		}
		o.Set("items", items)
	}
	return o
}

// On generated layers whose keyed arrays reuse keys within and across
// layers, every element of every layer is in the merged view, and the merge
// is deterministic.
func TestPropertyMergeLosesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "layers")
		var layers []triad.Layer
		for i := 0; i < n; i++ {
			doc := triad.NewObject()
			for _, field := range []string{"milestones", "sections", "backlog", "horizons"} {
				if !rapid.Bool().Draw(t, field) {
					continue
				}
				arr := triad.NewArray()
				for j, k := 0, rapid.IntRange(0, 5).Draw(t, field+"N"); j < k; j++ {
					arr.Items = append(arr.Items, genElement(t, field))
				}
				doc.Set(field, arr)
			}
			if rapid.Bool().Draw(t, "hasExtensions") {
				ext := triad.NewObject()
				ext.Set("inherits", triad.NewArray(triad.NewString("root.json")))
				doc.Set("extensions", ext)
			}
			layers = append(layers, triad.Layer{File: fmt.Sprint("L", i), Doc: doc, Inherited: rapid.Bool().Draw(t, "inherited")})
		}
		r := triad.Merge("s", layers)
		if lost := agentstest.Lost(layers, r.Merged); len(lost) > 0 {
			var in []string
			for _, l := range layers {
				in = append(in, l.File+" "+string(triad.Encode(l.Doc, triad.EncodeOptions{Compact: true})))
			}
			t.Fatalf("lost %v of\n%s\nin %s", lost, strings.Join(in, "\n"), triad.Canonical(r.Merged))
		}
		if again := triad.Merge("s", layers); string(triad.Canonical(again.Merged)) != string(triad.Canonical(r.Merged)) {
			t.Fatalf("merge is not deterministic")
		}
		if strings.Contains(string(triad.Canonical(r.Merged)), "root.json") {
			t.Fatalf("extensions.inherits copied into %s", triad.Canonical(r.Merged))
		}
	})
}

// Any two decodable documents merge without panicking and without losing
// an array element.
func FuzzMergeLosesNothing(f *testing.F) {
	f.Add(`{"milestones":[{"id":"near-1"},{"id":"near-1","t":1}]}`, `{"milestones":[{"id":"near-1","t":2}]}`)
	f.Add(`{"sections":[{"slug":"p","items":["a","b"]}],"extensions":{"j":"-CL"}}`, `{"sections":[{"slug":"p","items":[]}],"extensions":{"inherits":["x"]}}`)
	f.Add(`{"links":[{"title":"t"},{"title":"t","url":""}]}`, `{"links":[{"title":"t","url":null,"n":[1,{"a":2}]}]}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		da, err1 := triad.Decode("a", []byte(a))
		db, err2 := triad.Decode("b", []byte(b))
		if err1 != nil || err2 != nil {
			return
		}
		layers := []triad.Layer{{File: "a", Doc: da}, {File: "b", Doc: db}}
		r := triad.Merge("s", layers)
		if lost := agentstest.Lost(layers, r.Merged); len(lost) > 0 {
			t.Fatalf("lost %v in %s", lost, triad.Canonical(r.Merged))
		}
	})
}

// CLIA's merger knows milestones (and horizons, sections, backlog items) by
// their title: across layers, two milestones with the positional id "near-1"
// and different titles are both kept; with the same title (or one without
// a title) they are one item and merge.
func TestMergeKeepsPositionalIDsApart(t *testing.T) {
	layers := []triad.Layer{
		{File: "root", Doc: decode(t, `{"milestones":[{"id":"near-1","title":"Ship v1","status":"planned"},{"id":"mid-1","title":"Docs"}],"sections":[{"slug":"s1","title":"Policy","items":["a"]}]}`)},
		{File: "leaf", Doc: decode(t, `{"milestones":[{"id":"near-1","title":"Fix CI"},{"id":"mid-1","title":"Docs","status":"done"}],"sections":[{"slug":"s1","items":["b"]}]}`)},
	}
	r := triad.Merge("s", layers)
	got := string(triad.Encode(r.Merged, triad.EncodeOptions{Compact: true}))
	want := `{"milestones":[{"id":"near-1","title":"Ship v1","status":"planned"},{"id":"mid-1","title":"Docs","status":"done"},{"id":"near-1","title":"Fix CI"}],"sections":[{"slug":"s1","title":"Policy","items":["a","b"]}],"slug":"s"}`
	if got != want {
		t.Errorf("merged\n got %s\nwant %s", got, want)
	}
}

// Real documents stacked as layers (each corpus agenda, agent and agency
// document over the next of its kind, as if one inherited the other) lose
// no element: positional milestone ids collide across real documents.
func TestCorpusStackedLosesNothing(t *testing.T) {
	root := agentstest.CorpusDir(t)
	byKind := map[triad.DocKind][]triad.Layer{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		k, _, ok := triad.Match(d.Name())
		if !ok {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := triad.Decode(p, data); err == nil {
			byKind[k] = append(byKind[k], triad.Layer{File: p, Doc: v})
		}
		return nil
	})
	pairs, collisions := 0, 0
	for _, k := range triad.Kinds {
		docs := byKind[k]
		for i := 0; i+1 < len(docs); i++ {
			layers := docs[i : i+2]
			if i+2 < len(docs) {
				layers = docs[i : i+3]
			}
			collisions += positionalCollisions(layers)
			r := triad.Merge("s", layers)
			if lost := agentstest.Lost(layers, r.Merged); len(lost) > 0 {
				t.Errorf("stacking %d %s documents from %s lost %v", len(layers), k, layers[0].File, lost)
			}
			pairs++
		}
	}
	if pairs < 100 || collisions == 0 {
		t.Errorf("stacked %d runs with %d positional-id collisions; the corpus has more", pairs, collisions)
	}
}

// positionalCollisions counts milestone ids of a later layer that an
// earlier one uses with another title.
func positionalCollisions(layers []triad.Layer) int {
	seen := map[string]string{}
	n := 0
	for _, l := range layers {
		ms := l.Doc.Get("milestones")
		if ms == nil || ms.Kind != triad.Array {
			continue
		}
		for _, m := range ms.Items {
			id, title := m.Get("id"), m.Get("title")
			if id == nil || title == nil {
				continue
			}
			if t, ok := seen[id.Text]; ok && t != title.Text {
				n++
			}
			seen[id.Text] = title.Text
		}
	}
	return n
}
