package triadschema

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// Documents in the shapes CLIA's schemas describe conform; a wrong type, a
// missing required key or an unknown key is reported with its place.
func TestValidate(t *testing.T) {
	tests := []struct {
		kind      triad.DocKind
		doc, want string
	}{
		{triad.Agency, `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "status": "active", "updated": "2026-01-01T00:00:00Z", "entries": []}`, ""},
		{triad.Agency, `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "updated": "2026-01-01T00:00:00Z", "entries": 5}`, "entries"},
		{triad.Agency, `{"schemaVersion": "0.4.0", "title": "S", "updated": "2026-01-01T00:00:00Z", "entries": []}`, "slug"},
		{triad.Agent, `{"schemaVersion": "0.4.0", "slug": "s", "title": "S", "updated": "2026-01-01T00:00:00Z", "bogus": 1}`, "bogus"},
	}
	for _, tt := range tests {
		got, err := Validate(tt.kind, decode(t, tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s %s: %q, want a report naming %q", tt.kind, tt.doc, got, tt.want)
		}
	}
}

// Every corpus document can be validated (the schemas and their references
// resolve). Most real documents do not conform to the published schemas
// (the agent schema has no guardrails, extensions keys must start with
// x-), which is why doctor validates only with --schema.
func TestCorpusValidates(t *testing.T) {
	root := agentstest.CorpusDir(t)
	n, bad := 0, 0
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
		msg, err := Validate(k, v)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if msg != "" {
			bad++
		}
		return nil
	})
	if n < 100 || bad == 0 {
		t.Errorf("validated %d documents, %d do not conform", n, bad)
	}
}
