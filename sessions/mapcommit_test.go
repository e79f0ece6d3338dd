package sessions

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/canon"
)

// TestCommitMetaIsCanonical: the metadata the importer writes for a record
// is canonical JSON as json.Marshal writes it (commitMeta's members are in
// canonical order), so tract stores it without parsing it again; only a
// reasoning record's Extra, the harness's own JSON, may not be.
func TestCommitMetaIsCanonical(t *testing.T) {
	dir := unpack(t, "claude")
	checked := 0
	for _, p := range transcripts(t, filepath.Join(dir, "claude-2.1.332")) {
		b, err := (ClaudeReader{}).Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{})
		if err != nil {
			t.Fatal(err)
		}
		m := &sessionMapper{b: b, rep: &SessionReport{}}
		for i := range b.Records {
			r := &b.Records[i]
			req, err := m.request(r)
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind == KindReasoning && len(r.Raw) > 0 {
				continue
			}
			checked++
			if !canon.IsCanonical(req.Meta) {
				want, _ := canon.Canonicalize(req.Meta)
				t.Errorf("record %s (%s): meta %s is not canonical: %s", r.Key(), r.Kind, req.Meta, want)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d records, want the fixture's (over 100)", checked)
	}
}
