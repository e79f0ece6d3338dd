package triad_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/internal/canon"
	"github.com/agentlineage/lineage/triad"
)

// Every triad document of the real corpus decodes, and encoding it back
// keeps every key (in order) and every value (numbers by their text).
func TestCorpusRoundTrip(t *testing.T) {
	root := agentstest.CorpusDir(t)
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, _, ok := triad.Match(d.Name()); !ok {
			return nil
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := triad.Decode(p, data)
		if err != nil {
			t.Errorf("decode: %v", err)
			return nil
		}
		// An independent check: the canonical forms of the file and of our
		// encoding are the same bytes.
		want, err1 := canon.Canonicalize(data)
		got, err2 := canon.Canonicalize(triad.Encode(v, triad.EncodeOptions{}))
		if err1 != nil || err2 != nil || string(want) != string(got) {
			t.Errorf("%s: canonical forms differ (%v, %v)", p, err1, err2)
		}
		for _, opts := range []triad.EncodeOptions{{}, {Compact: true}} {
			w, err := triad.Decode("again", triad.Encode(v, opts))
			if err != nil || !triad.Equal(v, w) {
				t.Errorf("%s: round trip lost data (%v)", p, err)
			}
		}
		return nil
	})
	if n < 100 {
		t.Errorf("found %d triad documents in the corpus, want over 100", n)
	}
}
