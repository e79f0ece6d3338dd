package tract

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
)

// seedView is a small view with a rendered message of every kind the
// messages layout writes (a name, a tool call, a summary's range, a
// tools definition), for the checkpoint decoders' seeds.
func seedView() *view {
	counter := tokens.Func{Name: "o200k_base", Fn: func(s string) int { return len(s) }}
	v := newView(Tract{ID: "t1", Name: "main"}, counter)
	v.head = "h1"
	v.tools = []ToolDef{{Name: "f", Description: "d", Parameters: []byte(`{"type":"object"}`)}}
	v.rendered = []Message{
		{Role: RoleSystem, Content: "rules", Type: TypeInstruction, Priority: Pinned, Tokens: 4, Commit: "c1", Tract: "main", TractID: "t1"},
		{Role: RoleAssistant, Name: "bob", ToolCalls: []ToolCall{{ID: "x", Name: "f", Arguments: "{}"}}, Type: TypeToolCall, Priority: Normal, Tokens: 9, Commit: "c2", Tract: "kid", TractID: "t2", Slot: 1},
		{Role: RoleUser, Content: "summary", Type: TypeSummary, Priority: Important, Tokens: 5, Commit: "c3", Tract: "main", TractID: "t1", Slot: 3, Summarizes: []Hash{"c4", "c5"}},
		{Role: RoleUser, Content: "hashed", Type: TypeSummary, Priority: Normal, Tokens: 3, Commit: Hash(strings.Repeat("0a", 32)), Tract: "main", TractID: "t1", Slot: 4,
			Summarizes: []Hash{Hash(strings.Repeat("b1", 32)), Hash(strings.Repeat("B1", 32))}},
	}
	v.tokens = 21
	return v
}

// A stored checkpoint is checked against its sums before it is decoded,
// so its bytes are ours; still, a decoder never panics or reads past its
// data whatever the bytes, and what it accepts is what was written.
func FuzzDecodeMessages(f *testing.F) {
	v := seedView()
	good := encodeMessages(v)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sm, err := decodeMessages(data, v.viewer, v.head, 1)
		if string(data) == string(good) && (err != nil || !reflect.DeepEqual(sm.messages, v.rendered) || sm.tokens != v.tokens ||
			!reflect.DeepEqual(sm.tools, v.tools) || !sm.repair) {
			t.Fatalf("decoded %+v (%d tokens, %v); wrote %+v (%d)", sm.messages, sm.tokens, err, v.rendered, v.tokens)
		}
		// Written as it is read: never a panic, and damage is an error.
		sc := storedCompile{cv: CompiledView{Messages: data, Head: v.head}}
		read := func(ms *Messages) error {
			var m Message
			for ms.Next(&m) {
			}
			return ms.Err()
		}
		if done, werr := streamStored(read, v.viewer, sc); done && werr == nil && err != nil {
			t.Fatalf("streamed what does not decode (%v)", err)
		}
	})
}

func FuzzDecodeView(f *testing.F) {
	v := seedView()
	good := encodeView(v)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeView(data, v.viewer, v.counter)
	})
}

// The pieces' index is checked against its sum before it is read; still,
// decodeIndex and piecesMatch never panic whatever the bytes, and the
// index written for a view's pieces reads back as the pieces.
func FuzzDecodeIndex(f *testing.F) {
	v := seedView()
	msgs, pieces := encodePieces(v, 1)
	good, _ := encodeIndex(pieces, msgs)
	f.Add(good, msgs)
	f.Add(good[:len(good)/2], msgs)
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, index, data []byte) {
		got, err := decodeIndex(index)
		match := piecesMatch(index, data)
		if string(index) == string(good) && (err != nil || !reflect.DeepEqual(got, pieces)) {
			t.Fatalf("index read as %+v (%v); wrote %+v", got, err, pieces)
		}
		if string(index) == string(good) && match != (string(data) == string(msgs)) {
			t.Fatalf("pieces match %v for %d bytes of %d written", match, len(data), len(msgs))
		}
	})
}
