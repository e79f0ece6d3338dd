package sessions

import (
	"bytes"
	"context"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestMarshalMetaIsJSONMarshal: marshalMeta writes the bytes json.Marshal
// writes, for every record of every harness's fixtures and for metas that
// set every member, none, or strings JSON escapes.
func TestMarshalMetaIsJSONMarshal(t *testing.T) {
	var metas []commitMeta
	for _, h := range []struct {
		name string
		rd   Reader
	}{{"claude", ClaudeReader{}}, {"codex", CodexReader{}}, {"gemini", GeminiReader{}}} {
		for _, p := range transcripts(t, unpack(t, h.name)) {
			b, err := h.rd.Read(context.Background(), Source{Harness: h.rd.Harness(), Path: p}, Cursor{})
			if err != nil {
				t.Fatal(err)
			}
			m := &sessionMapper{b: b, rep: &SessionReport{}, metaHook: func(cm commitMeta) { metas = append(metas, cm) }}
			for i := range b.Records {
				if _, err := m.request(&b.Records[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if len(metas) < 300 {
		t.Fatalf("%d records, want the fixtures' (over 300)", len(metas))
	}
	odd := "a\"b\\c\n\t\x01<>&\u2028\u2029é😀"
	metas = append(metas, commitMeta{},
		commitMeta{Calls: []string{"c1", odd}, Compaction: &compactionMeta{Compressed: true, Kept: []string{"k"}, To: "t", Trigger: odd},
			Harness: Claude, Image: &imageMeta{MediaType: "image/png", Ref: "r", SHA256: "s", Size: -3},
			Injected: &injectedMeta{Lineage: true, Name: "n", Source: "s"}, IsError: true, Keys: []string{}, Kind: KindMessage,
			Parent: "p", Session: odd, Time: "t", Truncated: 5, Turn: &turnMeta{CacheRead: 1, CacheWrite: 2, Input: 3, Model: "m", Output: 4, ResponseID: "r", StopReason: "s"},
			Type: "x"},
		commitMeta{Compaction: &compactionMeta{}, Image: &imageMeta{}, Injected: &injectedMeta{}, Turn: &turnMeta{}},
		commitMeta{Session: "bad \xff utf-8"}, commitMeta{Keys: []string{"k"}, Extra: []byte(`{"b": 1, "a":2}`)})
	for _, cm := range metas {
		want, wantErr := json.Marshal(cm)
		got, err := marshalMeta(&cm)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
			t.Errorf("marshalMeta = %s, %v\njson.Marshal = %s, %v", got, err, want, wantErr)
		}
	}
}
