package tract

// applyBudget drops messages until res fits in budget tokens: NORMAL units
// oldest first, then IMPORTANT ones; a unit is a tool call with its results
// (or a lone message) and is as important as its most important member.
// PINNED is never dropped: when the pinned units alone exceed the budget the
// result is a *BudgetError with the tokens they need. It runs on every
// budgeted compile, warm ones included, so it keeps to slices indexed by
// message (a unit is named by its first message's index): no map but the
// tool call ids'.
func applyBudget(res *Result, budget int) error {
	if res.Tokens <= budget {
		res.Dropped = []Dropped{}
		return nil
	}
	msgs := res.Messages
	n := len(msgs)
	unit := make([]int32, n) // message → unit id (index of its first message)
	var byCall map[string]int32
	for i := range msgs {
		m := &msgs[i]
		unit[i] = int32(i)
		if m.Type == TypeToolResult && byCall != nil {
			if u, ok := byCall[m.ToolCallID]; ok {
				unit[i] = u
			}
		}
		for _, tc := range m.ToolCalls {
			if byCall == nil {
				byCall = map[string]int32{}
			}
			byCall[tc.ID] = int32(i)
		}
	}
	// level[u] is 1 + the rank of unit u's most important member, 0 for an
	// index that starts no unit; size[u] its tokens.
	level := make([]int8, n)
	size := make([]int, n)
	for i := range msgs {
		u := unit[i]
		if r := budgetRank(msgs[i].Priority) + 1; r > level[u] {
			level[u] = r
		}
		size[u] += msgs[i].Tokens
	}
	total := res.Tokens
	drop := make([]bool, n)
	for _, p := range []Priority{Normal, Important} {
		want := budgetRank(p) + 1
		for u := 0; u < n && total > budget; u++ {
			if level[u] == want {
				drop[u] = true
				total -= size[u]
			}
		}
	}
	if total > budget {
		e := &BudgetError{Budget: budget, Needed: total}
		for i := range msgs {
			if !drop[unit[i]] {
				e.Kept = append(e.Kept, msgs[i])
			}
		}
		return e
	}
	dropped := 0
	for i := range msgs {
		if drop[unit[i]] {
			dropped++
		}
	}
	kept := make([]Message, 0, n-dropped)
	res.Dropped = make([]Dropped, 0, dropped)
	for i := range msgs {
		m := &msgs[i]
		if drop[unit[i]] {
			res.Dropped = append(res.Dropped, Dropped{Commit: m.Commit, Tract: m.Tract, Type: m.Type, Priority: m.Priority, Tokens: m.Tokens})
			continue
		}
		kept = append(kept, *m)
	}
	res.Messages = kept
	res.Tokens = total
	return nil
}

// budgetRank orders priorities for the budget: skip, normal, important,
// pinned (an unknown one ranks as skip).
func budgetRank(p Priority) int8 {
	switch p {
	case Normal:
		return 1
	case Important:
		return 2
	case Pinned:
		return 3
	}
	return 0
}
