package tract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
)

// plainView is a view of n plain messages (no tool calls, valid names),
// what a long conversation's checkpoint holds.
func plainView(n int) *view {
	counter := tokens.Func{Name: "o200k_base", Fn: func(s string) int { return len(s) }}
	v := newView(Tract{ID: "t1", Name: "main"}, counter)
	v.head = "h1"
	for i := range n {
		sum := sha256.Sum256(fmt.Appendf(nil, "%d", i))
		role := []string{RoleUser, RoleAssistant}[i%2]
		v.rendered = append(v.rendered, Message{Role: role, Content: fmt.Sprintf("message %d: a line of conversation", i), Type: TypeMessage,
			Priority: Normal, Tokens: 9, Commit: Hash(hex.EncodeToString(sum[:])), Tract: "main", TractID: "t1", Slot: i})
	}
	v.tokens = 9 * n
	return v
}

// A compile written as it is read holds no message but the one it writes:
// its allocations do not grow with the context (a decode to Messages makes
// one Message and one hex hash per message), and it writes what
// WriteOpenAI writes of the decoded messages.
func TestWriteStoredOpenAIHoldsNoMessages(t *testing.T) {
	allocs := map[int]float64{}
	for _, n := range []int{200, 2000} {
		v := plainView(n)
		sc := storedCompile{cv: CompiledView{Messages: encodeMessages(v), Head: v.head},
			more: []Message{{Role: RoleUser, Content: "one more", Type: TypeMessage, Priority: Normal}}}
		var got, want bytes.Buffer
		if done, err := writeStoredOpenAI(&got, v.viewer, sc, "  "); !done || err != nil {
			t.Fatalf("%d messages: streamed %v, %v", n, done, err)
		}
		res, ok, err := sc.result(v.viewer, 0)
		if !ok || err != nil {
			t.Fatalf("decode: %v %v", ok, err)
		}
		if err := WriteOpenAI(&want, res, "  "); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%d messages: streamed %d bytes, WriteOpenAI %d", n, got.Len(), want.Len())
		}
		allocs[n] = testing.AllocsPerRun(5, func() {
			if _, err := writeStoredOpenAI(io.Discard, v.viewer, sc, "  "); err != nil {
				t.Fatal(err)
			}
		})
	}
	if allocs[2000] != allocs[200] {
		t.Fatalf("allocations grow with the messages: %v for 200, %v for 2000", allocs[200], allocs[2000])
	}

	// Messages the APIs' repair reorders are not streamed.
	v := plainView(3)
	v.rendered[1].ToolCalls = []ToolCall{{ID: "c", Name: "f"}}
	sc := storedCompile{cv: CompiledView{Messages: encodeMessages(v), Head: v.head}}
	if done, _ := writeStoredOpenAI(io.Discard, v.viewer, sc, ""); done {
		t.Fatal("streamed messages that need the APIs' repair")
	}
	sc = storedCompile{cv: CompiledView{Messages: encodeMessages(plainView(3)), Head: v.head}, more: []Message{{Role: RoleTool, ToolCallID: "c"}}}
	if done, _ := writeStoredOpenAI(io.Discard, v.viewer, sc, ""); done {
		t.Fatal("streamed an appended tool result")
	}
}
