package tract

import "slices"

// applyBudget drops messages until res fits in budget tokens: NORMAL units
// oldest first, then IMPORTANT ones; a unit is a tool call with its results
// (or a lone message) and is as important as its most important member.
// PINNED is never dropped: when the pinned units alone exceed the budget the
// result is a *BudgetError with the tokens they need. It runs on every
// budgeted compile, warm ones included, so it keeps to slices indexed by
// message (a unit is named by its first message's index): no map but the
// tool call ids'.
func applyBudget(res *Result, budget int) error { return applyBudgetIn(res, budget, nil) }

// applyBudgetIn is applyBudget gathering the kept messages in scratch
// (see CompileOptions.Scratch; nil: new memory).
func applyBudgetIn(res *Result, budget int, scratch *[]Message) error {
	if res.Tokens <= budget {
		res.Dropped = []Dropped{}
		return nil
	}
	msgs := res.Messages
	n := len(msgs)
	unit, drop, total := planBudget(n, res.Tokens, budget, func(visit func(i int, m *Message)) {
		for i := range msgs {
			visit(i, &msgs[i])
		}
	})
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
	kept := gather(scratch, n-dropped)
	res.Dropped = make([]Dropped, 0, dropped)
	for i := range msgs {
		m := &msgs[i]
		if drop[unit[i]] {
			res.Dropped = append(res.Dropped, Dropped{Commit: m.Commit, Tract: m.Tract, Type: m.Type, Priority: m.Priority, Tokens: m.Tokens})
			continue
		}
		kept = append(kept, *m)
	}
	res.Messages = gathered(scratch, kept)
	res.DroppedTokens = res.Tokens - total
	res.Tokens = total
	return nil
}

// gather is an empty list with room for n messages: scratch's memory
// when given (new when it has too little), else new memory.
func gather(scratch *[]Message, n int) []Message {
	if scratch == nil || cap(*scratch) < n {
		return make([]Message, 0, n+n/8)
	}
	return (*scratch)[:0]
}

// gathered hands the list gather gave, filled, to scratch (clearing what
// an earlier compile left past it) and returns it capped: an append to the
// result cannot write into the scratch.
func gathered(scratch *[]Message, kept []Message) []Message {
	if scratch != nil {
		clear(kept[len(kept):cap(kept)])
		*scratch = kept
	}
	return kept[:len(kept):len(kept)]
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

// result is v's compile under budget (0: none). With keep (the caller
// holds the cache's lock), the budget work is kept in v and resumed by the
// next compile of the same budget (see budgetState).
func (v *view) result(budget int, keep bool, scratch *[]Message) (Result, error) {
	res := Result{Tokens: v.tokens + tokensPrimer, Messages: v.rendered[:len(v.rendered):len(v.rendered)], Tools: v.tools}
	if budget <= 0 {
		return res, nil
	}
	res.Budget = &budget
	if !keep {
		return res, applyBudgetIn(&res, budget, scratch)
	}
	return res, v.budgetState(budget).apply(&res, v.gen, scratch)
}

// budgetsPerView bounds the budgets a view keeps the work of.
const budgetsPerView = 4

// budgetState returns v's kept work for budget, most recent first.
func (v *view) budgetState(budget int) *budgetState {
	for i, st := range v.budgets {
		if st.budget == budget {
			copy(v.budgets[1:i+1], v.budgets[:i])
			v.budgets[0] = st
			return st
		}
	}
	st := &budgetState{budget: budget}
	if len(v.budgets) == budgetsPerView {
		v.budgets = v.budgets[:budgetsPerView-1]
	}
	v.budgets = append([]*budgetState{st}, v.budgets...)
	return st
}

// budgetState is applyBudget's first phase (NORMAL units dropped oldest
// first) over a view's messages for one budget, kept so that the compile
// after an append resumes it instead of redoing it over the whole history.
//
// Messages only ever append to a view's rendered list between full renders
// (gen), and an append only adds tokens, so the decisions already taken
// stay those a fresh pass takes: every unit up to stop is decided; the
// pass goes on from stop over the new total. The one exception, an
// appended message raising a dropped unit above NORMAL (a pinned tool
// result whose call was dropped), starts the state over. A budget that
// NORMAL units alone cannot meet is applied by applyBudget each time.
//
// So a compile after k appended messages touches the k messages, the units
// it newly drops and the messages it keeps, never the history before them:
// work counts those touches (what the tests bound).
type budgetState struct {
	budget int
	gen    int
	// n is how many of the view's messages the state covers.
	n int
	// unit, level, size and drop are applyBudget's, per message index
	// (level, size and drop only meaningful at a unit's first message).
	unit   []int32
	level  []int8
	size   []int
	drop   []bool
	byCall map[string]int32
	// total is the request's tokens without the dropped units.
	total int
	// stop is the first unit not decided.
	stop int
	// kept and dropped are the messages before stop the budget keeps
	// (indexes) and drops (in order; results share the slice).
	kept    []int32
	dropped []Dropped
	// work counts the messages the last apply touched.
	work int
}

const normalLevel = 2 // budgetRank(Normal) + 1

// apply puts res (the view's messages of generation gen) under the
// state's budget, extending the state to res's messages first.
func (st *budgetState) apply(res *Result, gen int, scratch *[]Message) error {
	msgs := res.Messages
	if st.gen != gen || st.n > len(msgs) {
		*st = budgetState{budget: st.budget, gen: gen, total: tokensPrimer}
	}
	st.work = 0
	if !st.extend(msgs) {
		*st = budgetState{budget: st.budget, gen: gen, total: tokensPrimer}
		st.extend(msgs)
	}
	for u := st.stop; u < len(msgs) && st.total > st.budget; u++ {
		if st.level[u] == normalLevel {
			st.drop[u] = true
			st.total -= st.size[u]
		}
		st.stop = u + 1
		st.work++
	}
	if st.total > st.budget {
		// Only dropping IMPORTANT units too can meet it.
		return applyBudgetIn(res, st.budget, scratch)
	}
	// Decided messages that were not yet sorted into kept and dropped
	// (the units before stop are final).
	for i := len(st.kept) + len(st.dropped); i < st.stop; i++ {
		st.work++
		if st.drop[st.unit[i]] {
			m := &msgs[i]
			st.dropped = append(st.dropped, Dropped{Commit: m.Commit, Tract: m.Tract, Type: m.Type, Priority: m.Priority, Tokens: m.Tokens})
		} else {
			st.kept = append(st.kept, int32(i))
		}
	}
	// The rest: undecided units are kept; messages of dropped units met
	// there are dropped (a tool result whose call was).
	res.Dropped = st.dropped[:len(st.dropped):len(st.dropped)]
	if res.Dropped == nil {
		res.Dropped = []Dropped{}
	}
	if len(st.kept) == 0 && !st.dropsAfterStop(len(msgs)) {
		// Every message before stop dropped, none after (a history of
		// NORMAL messages): the view's messages from stop on, as they
		// are, not a copy.
		res.DroppedTokens = res.Tokens - st.total
		res.Messages = msgs[st.stop:]
		res.Tokens = st.total
		return nil
	}
	kept := gather(scratch, len(st.kept)+len(msgs)-st.stop)
	for _, i := range st.kept {
		kept = append(kept, msgs[i])
	}
	for i := st.stop; i < len(msgs); i++ {
		st.work++
		m := &msgs[i]
		if st.drop[st.unit[i]] {
			res.Dropped = append(res.Dropped, Dropped{Commit: m.Commit, Tract: m.Tract, Type: m.Type, Priority: m.Priority, Tokens: m.Tokens})
			continue
		}
		kept = append(kept, *m)
	}
	st.work += len(st.kept)
	res.DroppedTokens = res.Tokens - st.total
	res.Messages = gathered(scratch, kept)
	res.Tokens = st.total
	return nil
}

// dropsAfterStop reports whether a message from stop on belongs to a
// dropped unit.
func (st *budgetState) dropsAfterStop(n int) bool {
	for i := st.stop; i < n; i++ {
		st.work++
		if st.drop[st.unit[i]] {
			return true
		}
	}
	return false
}

// extend adds msgs[st.n:] to the units; false when one raises a dropped
// unit above NORMAL (the state must start over).
func (st *budgetState) extend(msgs []Message) bool {
	if len(msgs) > cap(st.unit) {
		c := len(msgs) + len(msgs)/8 + 64
		st.unit = slices.Grow(st.unit, c-len(st.unit))
		st.level = slices.Grow(st.level, c-len(st.level))
		st.size = slices.Grow(st.size, c-len(st.size))
		st.drop = slices.Grow(st.drop, c-len(st.drop))
	}
	for i := st.n; i < len(msgs); i++ {
		st.work++
		m := &msgs[i]
		u := int32(i)
		if m.Type == TypeToolResult && st.byCall != nil {
			if c, ok := st.byCall[m.ToolCallID]; ok {
				u = c
			}
		}
		for _, tc := range m.ToolCalls {
			if st.byCall == nil {
				st.byCall = map[string]int32{}
			}
			st.byCall[tc.ID] = int32(i)
		}
		st.unit = append(st.unit, u)
		st.level = append(st.level, 0)
		st.size = append(st.size, 0)
		st.drop = append(st.drop, false)
		if r := budgetRank(m.Priority) + 1; r > st.level[u] {
			if st.drop[u] {
				return false
			}
			st.level[u] = r
		}
		st.size[u] += m.Tokens
		if !st.drop[u] {
			st.total += m.Tokens
		}
	}
	st.n = len(msgs)
	return true
}

// planBudget is the budget's choice over n messages whose total is
// tokens, handed out in order by each: each message's unit (the index of
// its first message) and which units are dropped, and the total left.
// It holds a few bytes per message, never the messages (a windowed
// compile hands them out from the stored checkpoint, twice).
func planBudget(n, tokens, budget int, each func(visit func(i int, m *Message))) (unit []int32, drop []bool, total int) {
	unit = make([]int32, n) // message → unit id (index of its first message)
	level := make([]int8, n)
	size := make([]int, n)
	var byCall map[string]int32
	each(func(i int, m *Message) {
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
		u := unit[i]
		if r := budgetRank(m.Priority) + 1; r > level[u] {
			level[u] = r
		}
		size[u] += m.Tokens
	})
	total = tokens
	drop = make([]bool, n)
	for _, p := range []Priority{Normal, Important} {
		want := budgetRank(p) + 1
		for u := 0; u < n && total > budget; u++ {
			if level[u] == want {
				drop[u] = true
				total -= size[u]
			}
		}
	}
	return unit, drop, total
}

// ApplyBudget fits res into budget tokens by the compile's own rules (see
// CompileOptions.Budget): for a caller that reshaped a compiled result in
// memory (a preview that changes priorities without writing them). res's
// Messages are replaced, never modified in place.
func ApplyBudget(res *Result, budget int) error { return applyBudget(res, budget) }
