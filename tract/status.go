package tract

import (
	"container/heap"
	"context"
	"errors"
	"sort"
)

// Status is where a tract stands: its head, the compiled size against its
// stored budget, the spawned children whose work is not merged back yet, and
// how far each other branch is ahead of and behind the current one.
type Status struct {
	Tract  string `json:"tract"`
	Branch string `json:"branch,omitempty"`
	Head   Hash   `json:"head,omitempty"`
	Tokens int    `json:"tokens"`
	// Budget is the stored budget (nil when none); Over says the context
	// exceeds it.
	Budget *int `json:"budget"`
	Over   bool `json:"over"`
	// Pressure is Tokens / Budget (nil without a budget); Warn says it is
	// at or above WarnAt, and Plan is then the compression that brings
	// the context back under WarnAt of the budget.
	Pressure *float64       `json:"pressure"`
	WarnAt   float64        `json:"warnAt"`
	Warn     bool           `json:"warn"`
	Plan     *PressurePlan  `json:"plan,omitempty"`
	Children []ChildStatus  `json:"children"`
	Branches []BranchStatus `json:"branches"`
}

// ChildStatus is a spawned child with work the parent has not merged.
type ChildStatus struct {
	Name    string    `json:"name"`
	Purpose string    `json:"purpose"`
	Mode    SpawnMode `json:"mode"`
	Head    Hash      `json:"head"`
	// Unmerged counts the child's commits a merge-from would take now:
	// its new work and what earlier selective merges left out.
	Unmerged int `json:"unmerged"`
}

// BranchStatus compares a branch with the current head: Ahead counts its
// commits the head lacks, Behind the head's commits it lacks.
type BranchStatus struct {
	Name   string `json:"name"`
	Head   Hash   `json:"head"`
	Ahead  int    `json:"ahead"`
	Behind int    `json:"behind"`
}

// Status reports on the tract.
func (r *Repo) Status(ctx context.Context, tractName string) (Status, error) {
	t, h, err := r.Head(ctx, tractName)
	if err != nil {
		return Status{}, err
	}
	st := Status{Tract: t.Name, Branch: h.Branch, Head: h.Commit, Children: []ChildStatus{}, Branches: []BranchStatus{}}
	// The stored checkpoint's header has the figure when it is at HEAD.
	tokens, ok, err := r.storedTokens(ctx, t, h.Commit)
	if err != nil {
		return Status{}, err
	}
	if ok {
		st.Tokens = tokens + tokensPrimer
	} else {
		res, err := r.Compile(ctx, tractName, CompileOptions{})
		if err != nil {
			return Status{}, err
		}
		st.Tokens = res.Tokens
	}
	cfg, err := readConfig(ctx, r.store, t.ID)
	if err != nil {
		return Status{}, err
	}
	if cfg.Budget > 0 {
		st.Budget, st.Over = &cfg.Budget, st.Tokens > cfg.Budget
	}
	p, err := r.pressureOf(ctx, tractName, cfg, st.Tokens)
	if err != nil {
		return Status{}, err
	}
	st.Pressure, st.WarnAt, st.Warn, st.Plan = p.Ratio, p.WarnAt, p.Warn, p.Plan
	tracts, err := r.store.Tracts(ctx)
	if err != nil {
		return Status{}, err
	}
	for _, c := range tracts {
		if c.Spawn == nil || c.Spawn.Parent != t.ID {
			continue
		}
		ch, err := readHead(ctx, r.store, c.ID)
		if err != nil {
			return Status{}, err
		}
		if ch.Commit == "" || ch.Commit == c.Spawn.Commit {
			continue // nothing done yet
		}
		n, err := r.unmergedOf(ctx, t, h.Commit, ch.Commit)
		if err != nil {
			return Status{}, err
		}
		if n > 0 {
			st.Children = append(st.Children, ChildStatus{Name: c.Name, Purpose: c.Spawn.Purpose, Mode: c.Spawn.Mode, Head: ch.Commit, Unmerged: n})
		}
	}
	refs, err := r.store.Refs(ctx, t.ID)
	if err != nil {
		return Status{}, err
	}
	for _, ref := range refs {
		if ref.Name == HeadRef || ref.Name == h.Branch || isTagRef(ref.Name) {
			continue // tags are not branches
		}
		b := BranchStatus{Name: ref.Name, Head: Hash(ref.Value)}
		if b.Ahead, b.Behind, err = aheadBehind(ctx, r.store, b.Head, h.Commit); err != nil {
			return Status{}, err
		}
		st.Branches = append(st.Branches, b)
	}
	sort.Slice(st.Branches, func(i, j int) bool { return st.Branches[i].Name < st.Branches[j].Name })
	return st, nil
}

// aheadBehind counts the commits only a has and only b has. It walks down
// from both by generation and stops once every commit left to visit is
// reached from both sides, so it reads what lies between them and their
// merge base; without known positions it reads both ancestries.
func aheadBehind(ctx context.Context, rd Reader, a, b Hash) (ahead, behind int, err error) {
	if a == b {
		return 0, 0, nil
	}
	const fromA, fromB = 1, 2
	flags := map[Hash]int{}
	q := &genQueue{}
	push := func(h Hash, f int) error {
		if h == "" {
			return nil
		}
		old, seen := flags[h]
		flags[h] = old | f
		if seen {
			return nil
		}
		c, err := rd.Commit(ctx, h)
		if err != nil {
			return err
		}
		if !c.Pos.Known() {
			return errPositionUnknown
		}
		heap.Push(q, c)
		return nil
	}
	if err = push(a, fromA); err == nil {
		err = push(b, fromB)
	}
	for err == nil && q.Len() > 0 {
		c := heap.Pop(q).(Commit)
		f := flags[c.Hash]
		switch f {
		case fromA:
			ahead++
		case fromB:
			behind++
		}
		for _, p := range c.Parents {
			if err = push(p, f); err != nil {
				break
			}
		}
		if q.allFlagged(flags, fromA|fromB) {
			break
		}
	}
	if err == errPositionUnknown {
		return aheadBehindByAncestry(ctx, rd, a, b)
	}
	return ahead, behind, err
}

// errPositionUnknown stops a walk that needs generations an old commit lacks.
var errPositionUnknown = errors.New("position unknown")

func aheadBehindByAncestry(ctx context.Context, rd Reader, a, b Hash) (ahead, behind int, err error) {
	set := func(h Hash) (map[Hash]bool, error) {
		out := map[Hash]bool{}
		if h == "" {
			return out, nil
		}
		anc, err := rd.Ancestry(ctx, []Hash{h})
		for _, c := range anc {
			out[c.Hash] = true
		}
		return out, err
	}
	sa, err := set(a)
	if err != nil {
		return 0, 0, err
	}
	sb, err := set(b)
	if err != nil {
		return 0, 0, err
	}
	for h := range sa {
		if !sb[h] {
			ahead++
		}
	}
	for h := range sb {
		if !sa[h] {
			behind++
		}
	}
	return ahead, behind, nil
}

// genQueue pops the commit of the highest generation first.
type genQueue []Commit

func (q genQueue) Len() int           { return len(q) }
func (q genQueue) Less(i, j int) bool { return q[i].Pos.Gen > q[j].Pos.Gen }
func (q genQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *genQueue) Push(x any)        { *q = append(*q, x.(Commit)) }
func (q *genQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// allFlagged reports whether every queued commit carries all of want.
func (q genQueue) allFlagged(flags map[Hash]int, want int) bool {
	for _, c := range q {
		if flags[c.Hash] != want {
			return false
		}
	}
	return true
}

// unmergedOf counts the commits a plain merge-from of a child at end into
// t at head would take: none when the child's head is merged and no
// selective merge since left anything out (an ancestor test); else what
// the merge's preview takes.
func (r *Repo) unmergedOf(ctx context.Context, t Tract, head, end Hash) (int, error) {
	if head != "" {
		merged, again, err := r.plainMergeState(ctx, t, head, end)
		if err != nil || (merged && !again) {
			return 0, err
		}
	}
	pv, err := r.previewMergeFrom(ctx, t, head, end, nil, "", false)
	if err != nil {
		return 0, err
	}
	return pv.took, nil
}
