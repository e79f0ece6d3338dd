package tract

import (
	"bytes"
	"testing"
	"time"

	"github.com/agentlineage/lineage/internal/canon"
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
		hc := hashedCommit{Parents: cm.Parents, Content: cm.Content, Operation: cm.Operation, EditTarget: cm.EditTarget,
			Tract: cm.Tract, Time: cm.Time.UTC().Format(time.RFC3339Nano), Message: cm.Message}
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
