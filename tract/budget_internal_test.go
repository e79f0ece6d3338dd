package tract

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// The budget work a view keeps gives, after every append, exactly what
// applyBudget gives over all the messages (the error included), and
// touches only the appended messages, the units it newly drops and the
// messages it keeps: never the dropped history before them. The appends
// include tool calls answered later (their results join the call's unit,
// dropped or not) and results pinned when they arrive (the saved case in
// testdata/rapid is one whose call the budget had dropped: the state must
// start over, the unit being pinned now).
func TestBudgetStateResumes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		budget := rapid.IntRange(10, 200).Draw(rt, "budget")
		st := &budgetState{budget: budget}
		gen := 1
		var msgs []Message
		// With a scratch, each result is gathered in the memory of the
		// one before.
		var scratch *[]Message
		if rapid.Bool().Draw(rt, "scratch") {
			scratch = new([]Message)
		}
		var open []string // tool calls without a result yet
		calls := 0
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for step := 0; step < steps; step++ {
			appended := rapid.IntRange(1, 4).Draw(rt, "appended")
			for range appended {
				p := rapid.SampledFrom([]Priority{Normal, Normal, Normal, Important, Pinned}).Draw(rt, "priority")
				m := Message{Type: TypeMessage, Role: RoleUser, Priority: p, Tokens: rapid.IntRange(3, 30).Draw(rt, "tokens"),
					Commit: Hash(fmt.Sprintf("%064d", len(msgs))), Tract: "main"}
				switch op := rapid.SampledFrom([]string{"message", "message", "call", "result"}).Draw(rt, "op"); {
				case op == "call":
					calls++
					id := fmt.Sprint("c", calls)
					m.Type, m.Role, m.ToolCalls = TypeToolCall, RoleAssistant, []ToolCall{{ID: id, Name: "grep"}}
					open = append(open, id)
				case op == "result" && len(open) > 0:
					k := rapid.IntRange(0, len(open)-1).Draw(rt, "answered")
					m.Type, m.Role, m.ToolCallID = TypeToolResult, RoleTool, open[k]
					open = append(open[:k], open[k+1:]...)
				}
				msgs = append(msgs, m)
			}
			if rapid.IntRange(0, 20).Draw(rt, "full render") == 0 {
				gen++
			}
			total := tokensPrimer
			for _, m := range msgs {
				total += m.Tokens
			}
			view := msgs[:len(msgs):len(msgs)]
			want := Result{Tokens: total, Messages: view}
			werr := applyBudget(&want, budget)
			got := Result{Tokens: total, Messages: view}
			gerr := st.apply(&got, gen, scratch)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				rt.Fatalf("step %d: error %v, want %v", step, gerr, werr)
			}
			if werr != nil {
				continue
			}
			if len(got.Messages) == 0 && len(want.Messages) == 0 {
				got.Messages, want.Messages = nil, nil
			}
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("step %d (budget %d):\n got %+v\nwant %+v", step, budget, got, want)
			}
		}
	})
}

// After one append to a 10k-message history under a budget that keeps
// about 200 of them, the compile touches about the kept messages and the
// appended one, not the 10k.
func TestBudgetStateWork(t *testing.T) {
	const n, budget = 10_000, 4000
	var msgs []Message
	msg := func(i int) Message {
		p := Normal
		if i == 0 {
			p = Pinned
		}
		return Message{Type: TypeMessage, Role: RoleUser, Priority: p, Tokens: 18, Commit: Hash(fmt.Sprintf("%064d", i)), Tract: "main"}
	}
	for i := range n {
		msgs = append(msgs, msg(i))
	}
	st := &budgetState{budget: budget}
	apply := func() Result {
		res := Result{Tokens: tokensPrimer + 18*len(msgs), Messages: msgs[:len(msgs):len(msgs)]}
		if err := st.apply(&res, 1, nil); err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := apply()
	if st.work < n {
		t.Fatalf("first compile touched %d messages, fewer than the %d there are", st.work, n)
	}
	for i := 0; i < 100; i++ {
		msgs = append(msgs, msg(len(msgs)))
		res := apply()
		kept := len(res.Messages)
		if kept != len(first.Messages) || len(res.Dropped) != len(first.Dropped)+i+1 {
			t.Fatalf("append %d: %d kept, %d dropped", i, kept, len(res.Dropped))
		}
		// The appended message, the unit dropped for it, the kept ones
		// (listed and copied).
		if limit := 1 + 2 + 3*kept; st.work > limit {
			t.Fatalf("append %d: touched %d messages, want at most %d (%d kept of %d)", i, st.work, limit, kept, len(msgs))
		}
	}
}

// A history of NORMAL messages under a budget keeps its newest ones: the
// result is that window of the view's messages itself, not a copy (a warm
// compile allocates nothing per kept message), and capped so that an
// append to it cannot write into the view.
func TestBudgetStateSharesWindow(t *testing.T) {
	const budget = 400
	var msgs []Message
	for i := range 200 {
		msgs = append(msgs, Message{Type: TypeMessage, Role: RoleUser, Priority: Normal, Tokens: 18,
			Commit: Hash(fmt.Sprintf("%064d", i)), Tract: "main"})
	}
	st := &budgetState{budget: budget}
	for n := 100; n <= len(msgs); n++ {
		view := msgs[:n:n]
		res := Result{Tokens: tokensPrimer + 18*n, Messages: view}
		if err := st.apply(&res, 1, nil); err != nil {
			t.Fatal(err)
		}
		want := Result{Tokens: tokensPrimer + 18*n, Messages: view}
		if err := applyBudget(&want, budget); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res, want) {
			t.Fatalf("%d messages: got %+v\nwant %+v", n, res, want)
		}
		k := len(res.Messages)
		if k == 0 || &res.Messages[0] != &view[n-k] || cap(res.Messages) != k {
			t.Fatalf("%d messages: the %d kept are not the view's last ones, capped (cap %d)", n, k, cap(res.Messages))
		}
	}
}
