package tract

import "sort"

// applyBudget drops messages until res fits in budget tokens: NORMAL units
// oldest first, then IMPORTANT ones; a unit is a tool call with its results
// (or a lone message) and is as important as its most important member.
// PINNED is never dropped: when the pinned units alone exceed the budget the
// result is a *BudgetError with the tokens they need.
func applyBudget(res *Result, budget int) error {
	if res.Tokens <= budget {
		res.Dropped = []Dropped{}
		return nil
	}
	msgs := res.Messages
	unit := make([]int, len(msgs)) // message → unit id (index of its first message)
	byCall := map[string]int{}
	for i, m := range msgs {
		unit[i] = i
		if m.Type == TypeToolResult {
			if u, ok := byCall[m.ToolCallID]; ok {
				unit[i] = u
			}
		}
		for _, tc := range m.ToolCalls {
			byCall[tc.ID] = i
		}
	}
	rank := map[Priority]int{Skip: 0, Normal: 1, Important: 2, Pinned: 3}
	level := map[int]Priority{}
	size := map[int]int{}
	for i, m := range msgs {
		u := unit[i]
		if p, ok := level[u]; !ok || rank[m.Priority] > rank[p] {
			level[u] = m.Priority
		}
		size[u] += m.Tokens
	}
	units := make([]int, 0, len(level))
	for u := range level {
		units = append(units, u)
	}
	sort.Ints(units)
	total := res.Tokens
	drop := map[int]bool{}
	for _, p := range []Priority{Normal, Important} {
		for _, u := range units {
			if total <= budget {
				break
			}
			if level[u] == p {
				drop[u] = true
				total -= size[u]
			}
		}
	}
	if total > budget {
		return &BudgetError{Budget: budget, Needed: total}
	}
	kept := make([]Message, 0, len(msgs))
	res.Dropped = []Dropped{}
	for i, m := range msgs {
		if drop[unit[i]] {
			res.Dropped = append(res.Dropped, Dropped{Commit: m.Commit, Tract: m.Tract, Type: m.Type, Priority: m.Priority, Tokens: m.Tokens})
			continue
		}
		kept = append(kept, m)
	}
	res.Messages = kept
	res.Tokens = total
	return nil
}
