package triad

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func mustDecode(t testing.TB, s string) *Value {
	t.Helper()
	v, err := Decode("test", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mergeJSON(t testing.TB, slug string, docs ...string) (string, Result) {
	t.Helper()
	var layers []Layer
	for i, d := range docs {
		inherited := strings.HasPrefix(d, "inherited:")
		d = strings.TrimPrefix(d, "inherited:")
		layers = append(layers, Layer{File: fmt.Sprintf("L%d", i), Doc: mustDecode(t, d), Inherited: inherited})
	}
	r := Merge(slug, layers)
	return string(Encode(r.Merged, EncodeOptions{Compact: true, SortKeys: true})), r
}

func TestMergeRules(t *testing.T) {
	tests := []struct {
		name string
		docs []string
		want string
	}{
		{"scalars last non-empty", []string{`{"a":"x","b":1,"c":true}`, `{"a":"  ","b":null,"c":false}`},
			`{"a":"x","b":1,"c":false,"slug":"s"}`},
		{"zero is a value", []string{`{"n":5}`, `{"n":0}`}, `{"n":0,"slug":"s"}`},
		{"deep object merge", []string{`{"o":{"a":1,"b":{"x":1}}}`, `{"o":{"b":{"y":2},"c":3}}`},
			`{"o":{"a":1,"b":{"x":1,"y":2},"c":3},"slug":"s"}`},
		{"notes and extensions whole", []string{`{"notes":[{"a":1}],"extensions":{"a":1,"b":2}}`, `{"notes":[],"extensions":{"c":3}}`},
			`{"extensions":{"c":3},"notes":[{"a":1}],"slug":"s"}`},
		{"string union drops blanks, exact compare", []string{`{"g":["a","b",""]}`, `{"g":["b"," ","A","a ","c"]}`},
			`{"g":["a","b","A","a ","c"],"slug":"s"}`},
		{"links keyed by title|url", []string{`{"links":[{"title":"t","url":"u","n":1},{"url":"v"}]}`, `{"links":[{"url":"w"},{"title":"t","url":"u","n":2}]}`},
			`{"links":[{"n":2,"title":"t","url":"u"},{"url":"v"},{"url":"w"}],"slug":"s"}`},
		{"entries keyed by id then timestamp|title", []string{`{"entries":[{"id":"1","v":1},{"timestamp":"t","title":"x","v":1}]}`, `{"entries":[{"timestamp":"t","title":"x","v":2},{"id":"1","v":2},{"summary":"no key"}]}`},
			`{"entries":[{"id":"1","v":2},{"timestamp":"t","title":"x","v":2},{"summary":"no key"}],"slug":"s"}`},
		{"contributionMix by type", []string{`{"contributionMix":{"primary":[{"type":"code","weight":1}]}}`, `{"contributionMix":{"primary":[{"type":"doc"},{"type":"code","weight":3}]}}`},
			`{"contributionMix":{"primary":[{"type":"code","weight":3},{"type":"doc"}]},"slug":"s"}`},
		{"milestones slug else id else title", []string{`{"milestones":[{"id":"m1","v":1},{"title":"T","v":1}]}`, `{"milestones":[{"id":"m1","v":2},{"title":"T","v":2},{"slug":"T"}]}`},
			`{"milestones":[{"id":"m1","v":2},{"title":"T","v":2},{"slug":"T"}],"slug":"s"}`},
		{"horizons by key", []string{`{"horizons":[{"key":"now","label":"a","items":["x"]}]}`, `{"horizons":[{"key":"now","items":["y"]}]}`},
			`{"horizons":[{"items":["x","y"],"key":"now","label":"a"}],"slug":"s"}`},
		// A {key,label} horizon is known by its label as other items by their
		// title: one key, two labels are two horizons, the ancestor's kept.
		{"horizons: a label is the title", []string{`{"horizons":[{"key":"now","label":"a"}]}`, `{"horizons":[{"key":"now","label":"b"}]}`},
			`{"horizons":[{"key":"now","label":"a"},{"key":"now","label":"b"}],"slug":"s"}`},
		{"horizons: a title before the label", []string{`{"horizons":[{"key":"now","title":"T","label":"a"}]}`, `{"horizons":[{"key":"now","title":"T","label":"b"}]}`},
			`{"horizons":[{"key":"now","label":"b","title":"T"}],"slug":"s"}`},
		// Two items kept apart under one key: a later update of one merges
		// into it; the stale copy is not listed beside the new one.
		{"update of one of two items under one key", []string{`{"milestones":[{"id":"near-1","title":"A"}]}`, `{"milestones":[{"id":"near-1","title":"B","status":"planned"}]}`, `{"milestones":[{"id":"near-1","title":"B","status":"done"}]}`},
			`{"milestones":[{"id":"near-1","title":"A"},{"id":"near-1","status":"done","title":"B"}],"slug":"s"}`},
		{"update of one of two horizons under one key", []string{`{"horizons":[{"key":"near","label":"Near-Term"},{"key":"near","label":"Soon","window":"1w"}]}`, `{"horizons":[{"key":"near","label":"Soon","window":"2w"}]}`},
			`{"horizons":[{"key":"near","label":"Near-Term"},{"key":"near","label":"Soon","window":"2w"}],"slug":"s"}`},
		{"backlog slug else title", []string{`{"backlog":[{"title":"a","n":1}]}`, `{"backlog":[{"title":"a","n":2}]}`},
			`{"backlog":[{"n":2,"title":"a"}],"slug":"s"}`},
		{"focusDomains by identifier", []string{`{"focusDomains":[{"identifier":"x","w":1}]}`, `{"focusDomains":[{"identifier":"x","w":2}]}`},
			`{"focusDomains":[{"identifier":"x","w":2}],"slug":"s"}`},
		{"other object arrays by canonical json", []string{`{"xs":[{"a":1,"b":2},{"a":1.0}]}`, `{"xs":[{"b":2,"a":1},{"a":1}]}`},
			`{"slug":"s","xs":[{"a":1,"b":2},{"a":1.0}]}`},
		{"sections of strings and objects", []string{`{"sections":["a",{"title":"b","v":1}]}`, `{"sections":["a",{"title":"b","v":2}]}`},
			`{"sections":["a",{"title":"b","v":2}],"slug":"s"}`},
		{"directives consumed", []string{`{"inherits":["x"],"rootChain":{"mode":"explicit"},"a":1}`}, `{"a":1,"slug":"s"}`},
		{"slug from non-inherited layers", []string{`{"slug":"local"}`, `inherited:{"slug":"root"}`}, `{"slug":"local"}`},
		{"inherited slug ignored", []string{`inherited:{"slug":"root","a":1}`}, `{"a":1,"slug":"s"}`},
		{"kind change replaces", []string{`{"a":{"x":1}}`, `{"a":"str"}`, `{"b":"s"}`, `{"b":{"y":1}}`},
			`{"a":"str","b":{"y":1},"slug":"s"}`},
		{"non-object layers ignored", []string{`[1,2]`, `{"a":1}`}, `{"a":1,"slug":"s"}`},
		{"empty containers kept", []string{`{"links":[],"o":{}}`}, `{"links":[],"o":{},"slug":"s"}`},
		// Keyed arrays lose nothing.
		{"duplicate ids in one layer all kept", []string{`{"milestones":[{"id":"near-1","t":"a"},{"id":"near-1","t":"b"},{"id":"near-1","t":"a"}]}`},
			`{"milestones":[{"id":"near-1","t":"a"},{"id":"near-1","t":"b"}],"slug":"s"}`},
		{"duplicate slugs in one layer all kept", []string{`{"sections":[{"slug":"next","items":["a"]},{"slug":"next","items":["b"]}]}`},
			`{"sections":[{"items":["a"],"slug":"next"},{"items":["b"],"slug":"next"}],"slug":"s"}`},
		{"key not unique in the later layer: no match", []string{`{"milestones":[{"id":"m","t":"a"}]}`, `{"milestones":[{"id":"m","t":"b"},{"id":"m","t":"c"}]}`},
			`{"milestones":[{"id":"m","t":"a"},{"id":"m","t":"b"},{"id":"m","t":"c"}],"slug":"s"}`},
		{"key not unique so far: no match", []string{`{"milestones":[{"id":"m","t":"a"},{"id":"m","t":"b"}]}`, `{"milestones":[{"id":"m","t":"c"}]}`},
			`{"milestones":[{"id":"m","t":"a"},{"id":"m","t":"b"},{"id":"m","t":"c"}],"slug":"s"}`},
		{"non-unique key still drops exact duplicates", []string{`{"milestones":[{"id":"m","t":"a"},{"id":"m","t":"b"}]}`, `{"milestones":[{"t":"b","id":"m"}]}`},
			`{"milestones":[{"id":"m","t":"a"},{"id":"m","t":"b"}],"slug":"s"}`},
		{"matched section merges its items", []string{`{"sections":[{"title":"Policy","items":["no-force-push","sign"]}]}`, `{"sections":[{"title":"Policy","items":["sign"]}]}`},
			`{"sections":[{"items":["no-force-push","sign"],"title":"Policy"}],"slug":"s"}`},
		{"local empty items removes nothing", []string{`{"sections":[{"title":"Policy","items":["no-force-push","sign"],"kind":"list"}]}`, `{"sections":[{"title":"Policy","items":[],"kind":" "}]}`},
			`{"sections":[{"items":["no-force-push","sign"],"kind":"list","title":"Policy"}],"slug":"s"}`},
		{"matched element: scalars later-win, new members added", []string{`{"backlog":[{"slug":"b","status":"open","due":null}]}`, `{"backlog":[{"slug":"b","status":"done","owner":"x"}]}`},
			`{"backlog":[{"due":null,"owner":"x","slug":"b","status":"done"}],"slug":"s"}`},
		{"extensions holding only inherits is empty", []string{`{"extensions":{"journalSignature":"-CL"}}`, `{"extensions":{"inherits":["root.json"]}}`},
			`{"extensions":{"journalSignature":"-CL"},"slug":"s"}`},
		{"extensions inherits consumed", []string{`{"extensions":{"journalSignature":"-CL"}}`, `{"extensions":{"inherits":["root.json"],"x":1}}`},
			`{"extensions":{"x":1},"slug":"s"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := mergeJSON(t, "s", tt.docs...)
			if got != tt.want {
				t.Errorf("merge =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestMergeProvenance(t *testing.T) {
	_, r := mergeJSON(t, "s",
		`{"title":"a","guardrails":["g1","g2"],"notes":[{"x":1}],"o":{"k":1},"links":[{"title":"t"}]}`,
		`{"title":"b","guardrails":["g2","g3"],"o":{"j":2},"links":[{"title":"t","url":""}],"slug":"mine","a~/b":1}`)
	want := map[string]string{
		"/title": "L1", "/guardrails/0": "L0", "/guardrails/1": "L0", "/guardrails/2": "L1",
		"/notes": "L0", "/o/k": "L0", "/o/j": "L1", "/links/0/title": "L1", "/slug": "L1", "/a~0~1b": "L1",
	}
	if len(r.Provenance) != len(want) {
		t.Errorf("provenance = %v", r.Provenance)
	}
	for p, f := range want {
		if r.Provenance[p] != f {
			t.Errorf("provenance[%s] = %q, want %q", p, r.Provenance[p], f)
		}
	}
}

func TestMergeDoesNotAliasLayers(t *testing.T) {
	l := mustDecode(t, `{"a":{"b":[{"c":1}]}}`)
	before := string(Encode(l, EncodeOptions{Compact: true}))
	r := Merge("s", []Layer{{File: "x", Doc: l}})
	r.Merged.Get("a").Get("b").Items[0].Set("c", NewNumber("9"))
	if after := string(Encode(l, EncodeOptions{Compact: true})); after != before {
		t.Errorf("merge output shares memory with its input: %s", after)
	}
}

// Every guardrail of every layer, inherited or not, is in the merged
// profile: arrays only grow.
func TestPropertyInheritedGuardrailsSurvive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		word := rapid.StringMatching(`[ a-c]{0,3}`)
		n := rapid.IntRange(1, 8).Draw(t, "layers")
		var layers []Layer
		want := map[string]bool{}
		for i := 0; i < n; i++ {
			doc := NewObject()
			if rapid.Bool().Draw(t, "hasGuardrails") {
				arr := NewArray()
				for _, g := range rapid.SliceOf(word).Draw(t, "guardrails") {
					arr.Items = append(arr.Items, NewString(g))
					if strings.TrimSpace(g) != "" {
						want[g] = true
					}
				}
				doc.Set("guardrails", arr)
			}
			if rapid.Bool().Draw(t, "hasTitle") {
				doc.Set("title", NewString(word.Draw(t, "title")))
			}
			layers = append(layers, Layer{File: fmt.Sprint(i), Doc: doc, Inherited: rapid.Bool().Draw(t, "inherited")})
		}
		r := Merge("s", layers)
		got := map[string]int{}
		if g := r.Merged.Get("guardrails"); g != nil {
			for _, it := range g.Items {
				got[it.Text]++
			}
		}
		for g := range want {
			if got[g] != 1 {
				t.Fatalf("guardrail %q appears %d times in %s", g, got[g], Canonical(r.Merged))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("merged guardrails %v, want %v", got, want)
		}
	})
}

func BenchmarkMerge100x200(b *testing.B) {
	var layers []Layer
	for l := 0; l < 100; l++ {
		doc := NewObject()
		for f := 0; f < 200; f++ {
			switch f % 4 {
			case 0:
				doc.Set(fmt.Sprintf("s%d", f), NewString(fmt.Sprintf("v%d-%d", l, f)))
			case 1:
				doc.Set(fmt.Sprintf("a%d", f), NewArray(NewString(fmt.Sprintf("g%d", l)), NewString("shared")))
			case 2:
				o := NewObject()
				o.Set("x", NewNumber(fmt.Sprint(l)))
				doc.Set(fmt.Sprintf("o%d", f), o)
			default:
				link := NewObject()
				link.Set("title", NewString(fmt.Sprint(l)))
				link.Set("url", NewString("u"))
				doc.Set("links", NewArray(link))
			}
		}
		layers = append(layers, Layer{File: fmt.Sprint(l), Doc: doc})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Merge("s", layers)
	}
}

// An element merged from two layers names both files, per pointer.
func TestMergeProvenanceOfMergedElements(t *testing.T) {
	_, r := mergeJSON(t, "s",
		`{"sections":[{"slug":"policy","title":"Policy","items":["no-force-push","sign"],"notes":[{"a":1}]},{"slug":"dup","n":1},{"slug":"dup","n":2}]}`,
		`{"sections":[{"slug":"policy","items":["sign","review"],"status":"active"},{"slug":"dup","n":3}]}`)
	want := map[string]string{
		"/sections/0/slug": "L1", "/sections/0/title": "L0", "/sections/0/items/0": "L0", "/sections/0/items/1": "L0",
		"/sections/0/items/2": "L1", "/sections/0/notes": "L0", "/sections/0/status": "L1",
		"/sections/1": "L0", "/sections/2": "L0", "/sections/3": "L1", "/slug": "",
	}
	for p, f := range want {
		if r.Provenance[p] != f {
			t.Errorf("provenance[%s] = %q, want %q", p, r.Provenance[p], f)
		}
	}
	if len(r.Provenance) != len(want)-1 {
		t.Errorf("provenance = %v", r.Provenance)
	}
}

// 20 layers of 200 milestones whose ids repeat within and across layers,
// the shape of real agendas.
func BenchmarkMergeKeyedDuplicates(b *testing.B) {
	var layers []Layer
	for l := 0; l < 20; l++ {
		arr := NewArray()
		for i := 0; i < 200; i++ {
			o := NewObject()
			o.Set("id", NewString(fmt.Sprintf("near-%d", i%40)))
			o.Set("title", NewString(fmt.Sprintf("m%d-%d", l%3, i)))
			o.Set("items", NewArray(NewString(fmt.Sprint(l)), NewString("shared")))
			arr.Items = append(arr.Items, o)
		}
		doc := NewObject()
		doc.Set("milestones", arr)
		layers = append(layers, Layer{File: fmt.Sprint(l), Doc: doc})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Merge("s", layers)
	}
}
