package triadschema

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

func decode(t *testing.T, s string) *triad.Value {
	t.Helper()
	v, err := triad.Decode("t", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Documents in the shapes CLIA's schemas describe conform; every wrong
// type, missing required key and unknown key is reported, each at the
// pointer of the value it is about, in pointer order.
func TestValidate(t *testing.T) {
	tests := []struct {
		kind triad.DocKind
		doc  string
		want []string
	}{
		{triad.Agency, `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "status": "active", "updated": "2026-01-01T00:00:00Z", "entries": []}`, nil},
		{triad.Agency, `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "status": "active", "updated": "2026-01-01T00:00:00Z", "entries": 5}`,
			[]string{`/entries: type: 5 has type "integer", want "array"`}},
		{triad.Agency, `{"schemaVersion": "0.4.0", "title": "S", "status": "active", "updated": "2026-01-01T00:00:00Z", "entries": []}`,
			[]string{`: required: missing properties: ["slug"]`}},
		{triad.Agent, `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "status": "active", "role": "r", "updated": "2026-01-01T00:00:00Z", "bogus": 1}`,
			[]string{`: unexpected additional properties ["bogus"]`}},
		// Three violations at three places: the validator alone names one,
		// a different one from run to run.
		{triad.Agent, `{"schemaVersion": "0.4.0", "title": 7, "status": "active", "role": "r", "updated": "2026-01-01T00:00:00Z", "bogus": 1, "zz": 2,
		  "links": [{"title": "ok", "href": "https://x"}, {"title": 3}]}`,
			[]string{
				`: required: missing properties: ["slug"]`,
				`: unexpected additional properties ["bogus" "zz"]`,
				`/links/1: required: missing properties: ["href"]`,
				`/links/1/title: type: 3 has type "integer", want "string"`,
				`/title: type: 7 has type "integer", want "string"`,
			}},
	}
	for _, tt := range tests {
		for range 5 {
			vs, err := Validate(tt.kind, decode(t, tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Pointer+": "+v.Message)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s %s:\n got %q\nwant %q", tt.kind, tt.doc, got, tt.want)
				break
			}
		}
	}
}

// Every corpus document can be validated (the schemas and their references
// resolve). Most real documents do not conform to the published schemas
// (the agent schema has no guardrails, extensions keys must start with
// x-), which is why doctor validates only with --schema.
func TestCorpusValidates(t *testing.T) {
	root := agentstest.CorpusDir(t)
	n, bad, several := 0, 0, 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		k, _, ok := triad.Match(d.Name())
		if !ok {
			return nil
		}
		data, _ := os.ReadFile(p)
		v, err := triad.Decode(p, data)
		if err != nil {
			return nil
		}
		n++
		vs, err := Validate(k, v)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(vs) > 0 {
			bad++
		}
		if len(vs) > 1 {
			several++
		}
		return nil
	})
	if n < 100 || bad == 0 || several == 0 {
		t.Errorf("validated %d documents, %d do not conform, %d of them in more than one way", n, bad, several)
	}
	t.Logf("validated %d documents, %d do not conform, %d of them in more than one way", n, bad, several)
}
