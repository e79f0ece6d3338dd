package tract

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/agentlineage/lineage/internal/canon"
	"github.com/go-json-experiment/json"
)

// FuzzCanonical checks the hand-written canonical encoders against
// internal/canon for arbitrary strings.
func FuzzCanonical(f *testing.F) {
	f.Add("hello", "user", "", "", "a", "{}", "msg", int64(0), false)
	f.Add("line\nbreak \"q\" \\ \t\x01\x7f é 😀 \u2028 </script>", "assistant", "n", "id", "f", `{"a":[1,2]}`, "m\x00", int64(1767225600123456789), true)
	f.Fuzz(func(t *testing.T, text, role, name, callID, fn, args, message string, nanos int64, seed bool) {
		c := Content{Type: TypeToolCall, Role: role, Name: name, Text: text, ToolCallID: callID, Seed: seed}
		if fn != "" {
			c.ToolCalls = []ToolCall{{ID: callID, Name: fn, Arguments: args}}
		}
		want, werr := canon.Marshal(c)
		got, gerr := canonicalContent(c)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("content errors differ: canon %v, fast %v", werr, gerr)
		}
		if werr == nil && !bytes.Equal(got, want) {
			t.Fatalf("content:\nfast  %s\ncanon %s", got, want)
		}
		cm := Commit{Parents: []Hash{Hash(text), Hash(role)}, Content: Hash(name), Operation: OpEdit, EditTarget: Hash(callID),
			Tract: fn, Time: time.Unix(0, nanos), Message: message}
		if meta, err := ParseMeta([]byte(args)); err == nil {
			cm.Meta = meta
		}
		hc := hashedCommit{Parents: cm.Parents, Content: cm.Content, Operation: cm.Operation, EditTarget: cm.EditTarget,
			Tract: cm.Tract, Time: cm.Time.UTC().Format(time.RFC3339Nano), Message: cm.Message, Meta: cm.Meta}
		want, werr = canon.Marshal(hc)
		if werr != nil {
			return // invalid UTF-8: the fast path substitutes U+FFFD instead
		}
		if got := canonicalCommit(cm); !bytes.Equal(got, want) {
			t.Fatalf("commit:\nfast  %s\ncanon %s", got, want)
		}
	})
}

func TestCanonicalEmptyParents(t *testing.T) {
	c := Commit{Operation: OpAppend, Content: "ab", Tract: "t", Time: time.Unix(5, 0)}
	want, _ := canon.Marshal(hashedCommit{Parents: []Hash{}, Content: "ab", Operation: OpAppend, Tract: "t", Time: "1970-01-01T00:00:05Z"})
	if got := canonicalCommit(c); !bytes.Equal(got, want) {
		t.Fatalf("fast %s canon %s", got, want)
	}
}

// FuzzDecodeContent checks the direct blob scanner against the JSON
// decoder, on canonical blobs and on arbitrary bytes.
func FuzzDecodeContent(f *testing.F) {
	f.Add("hello\n\"x\" \\ \x01 é", "user", "n", "id", false, []byte(`{"type":"message"}`))
	f.Add("", "", "", "", true, []byte(`{"text":"a\u0041","type":"message"}`))
	f.Fuzz(func(t *testing.T, text, role, name, callID string, seed bool, raw []byte) {
		c := Content{Type: TypeMessage, Role: role, Name: name, Text: text, ToolCallID: callID, Seed: seed}
		if b, err := canonicalContent(c); err == nil {
			got, err := DecodeContent(b)
			if err != nil || !reflect.DeepEqual(got, c) {
				t.Fatalf("round trip of %s: %+v %v", b, got, err)
			}
		}
		fast, ok := decodeCanonical(raw)
		if !ok {
			return
		}
		var want Content
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("scanner accepted %q, json rejects it: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%q: scanner %+v, json %+v", raw, fast, want)
		}
	})
}
