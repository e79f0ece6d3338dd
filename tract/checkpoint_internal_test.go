package tract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
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

// A compile handed out as it is read holds no message but the one read:
// its allocations do not grow with the context (a decode to Messages makes
// one Message and one hex hash per message), and it hands out the
// messages the decoded result holds.
func TestStreamStoredHoldsNoMessages(t *testing.T) {
	var got []Message
	collect := func(ms *Messages) error {
		got = ms.All()
		return ms.Err()
	}
	var m Message
	read := func(ms *Messages) error {
		for ms.Next(&m) {
		}
		return ms.Err()
	}
	allocs := map[int]float64{}
	for _, n := range []int{200, 2000} {
		v := plainView(n)
		sc := storedCompile{cv: CompiledView{Messages: encodeMessages(v), Head: v.head},
			more: []Message{{Role: RoleUser, Content: "one more", Type: TypeMessage, Priority: Normal}}}
		if done, err := streamStored(collect, v.viewer, sc); !done || err != nil {
			t.Fatalf("%d messages: streamed %v, %v", n, done, err)
		}
		res, ok, err := sc.result(v.viewer, 0)
		if !ok || err != nil {
			t.Fatalf("decode: %v %v", ok, err)
		}
		for i := range res.Messages[:n] {
			res.Messages[i].Commit = "" // not read when streamed
		}
		if !reflect.DeepEqual(got, res.Messages) {
			t.Fatalf("%d messages: streamed %d messages unlike the decoded result's %d", n, len(got), len(res.Messages))
		}
		allocs[n] = testing.AllocsPerRun(5, func() {
			if _, err := streamStored(read, v.viewer, sc); err != nil {
				t.Fatal(err)
			}
		})
	}
	if allocs[2000] != allocs[200] {
		t.Fatalf("allocations grow with the messages: %v for 200, %v for 2000", allocs[200], allocs[2000])
	}

	// Messages that are not plain are not streamed.
	v := plainView(3)
	v.rendered[1].ToolCalls = []ToolCall{{ID: "c", Name: "f"}}
	sc := storedCompile{cv: CompiledView{Messages: encodeMessages(v), Head: v.head}}
	if done, _ := streamStored(read, v.viewer, sc); done {
		t.Fatal("streamed messages that are not plain")
	}
	sc = storedCompile{cv: CompiledView{Messages: encodeMessages(plainView(3)), Head: v.head}, more: []Message{{Role: RoleTool, ToolCallID: "c"}}}
	if done, _ := streamStored(read, v.viewer, sc); done {
		t.Fatal("streamed an appended tool result")
	}
}
