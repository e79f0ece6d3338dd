package tract

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/internal/canon"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Merge selection. By default merge-from takes everything the child did
// after its spawn point. A selection narrows that, still by reference: the
// merge commit's second parent is the range's end (the child's head when
// no range is given), so GC keeps the child's commits and blame names them,
// and the merge commit records what it takes in its metadata under
// "select" (part of its hash, shown by show and log --json):
//
//	{"select":{"from":HASH,"types":[…],"roles":[…],"commits":[…]}}
//
// Compile renders, of the commits the merge brings in (its block), only
// those in the range from..(second parent) — the first-parent commits from
// FROM to the end, both included, with the blocks merged into them — whose
// type and role are among the ones named and, with tags, that a tag named.
// The rest of the block stays in the DAG and out of the parent's compile;
// a later merge-from takes only what is newer.

// MergeFromOptions select what a merge-from takes and where it goes.
type MergeFromOptions struct {
	// Into is the parent tract (default: the child's spawn parent).
	Into string
	// Range is FROM..TO of the child's first-parent history, both
	// included; "" means everything after the spawn point up to the head.
	Range string
	// Types and Roles, when given, keep only commits of these.
	Types []Type
	Roles []string
	// Tags, when given, keep only the commits these tags of the child name.
	Tags []string
	// DryRun lists what the merge would pull, with tokens, and stores
	// nothing.
	DryRun bool
	// Encoding names the token encoding of a dry run's counts.
	Encoding string
	// AllowEmpty records a selective merge whose selection takes nothing
	// (refused otherwise: see NothingSelectedError).
	AllowEmpty bool
}

// Validate checks the options before any store is opened.
func (o MergeFromOptions) Validate() error {
	if o.Range != "" {
		if _, _, err := ParseRange(o.Range); err != nil {
			return err
		}
	}
	for _, t := range o.Types {
		if _, ok := allowedRoles(t); !ok {
			return &ValidationError{Field: "type", Value: string(t), Reason: "want one of " + typeNames() + " or summary"}
		}
	}
	for _, r := range o.Roles {
		if !contains([]string{RoleSystem, RoleUser, RoleAssistant, RoleTool}, r) {
			return &ValidationError{Field: "role", Value: r, Reason: "want system, user, assistant or tool"}
		}
	}
	for _, t := range o.Tags {
		if err := ValidateTagName(t); err != nil {
			return err
		}
	}
	return nil
}

// selective reports whether the options narrow what is merged.
func (o MergeFromOptions) selective() bool {
	return o.Range != "" || len(o.Types) > 0 || len(o.Roles) > 0 || len(o.Tags) > 0
}

// Selection is what a selective merge takes, as its metadata records it.
type Selection struct {
	From    Hash     `json:"from,omitempty"`
	Types   []Type   `json:"types,omitempty"`
	Roles   []string `json:"roles,omitempty"`
	Commits []Hash   `json:"commits,omitempty"`
}

// selectionMeta is a merge commit's metadata holding sel.
func selectionMeta(sel Selection) (jsontext.Value, error) {
	b, err := canon.Marshal(map[string]Selection{"select": sel})
	if err != nil {
		return nil, err
	}
	return jsontext.Value(b), nil
}

// selectionOf is the selection a merge commit records; nil for none.
func selectionOf(c *Commit) *Selection {
	if c.Operation != OpMerge || len(c.Meta) == 0 || !strings.Contains(string(c.Meta), `"select"`) {
		return nil
	}
	var m struct {
		Select *Selection `json:"select"`
	}
	if json.Unmarshal(c.Meta, &m) != nil {
		return nil
	}
	return m.Select
}

// resolveSelection turns the options into a selection of the child's
// commits and the merge's second parent (the range's end, else head).
func (r *Repo) resolveSelection(ctx context.Context, child Tract, head Hash, o MergeFromOptions) (Selection, Hash, error) {
	sel := Selection{Types: slices.Clone(o.Types), Roles: slices.Clone(o.Roles)}
	slices.Sort(sel.Types)
	sel.Types = slices.Compact(sel.Types)
	slices.Sort(sel.Roles)
	sel.Roles = slices.Compact(sel.Roles)
	end := head
	if o.Range != "" {
		fromRef, toRef, _ := ParseRange(o.Range)
		from, err := r.Resolve(ctx, child, fromRef)
		if err != nil {
			return Selection{}, "", err
		}
		if end, err = r.Resolve(ctx, child, toRef); err != nil {
			return Selection{}, "", err
		}
		ok, err := onFirstParentHistory(ctx, r.store, end, head)
		if err != nil {
			return Selection{}, "", err
		}
		if !ok {
			return Selection{}, "", &ValidationError{Field: "range", Value: o.Range, Reason: fmt.Sprintf("%s is not on %s's first-parent history", end.Short(), child.Name)}
		}
		if ok, err = onFirstParentHistory(ctx, r.store, from, end); err != nil {
			return Selection{}, "", err
		}
		if !ok {
			return Selection{}, "", &ValidationError{Field: "range", Value: o.Range, Reason: fmt.Sprintf("%s is not %s or one of its first parents (oldest first)", from.Short(), end.Short())}
		}
		sel.From = from
	}
	for _, name := range o.Tags {
		h, err := tagCommit(ctx, r.store, child, name)
		if err != nil {
			return Selection{}, "", err
		}
		sel.Commits = append(sel.Commits, h)
	}
	slices.Sort(sel.Commits)
	sel.Commits = slices.Compact(sel.Commits)
	return sel, end, nil
}

// picks is what the merges of a view take: out marks the commits a
// selective merge left out and no later merge took (they neither render
// nor edit nor compress anything); at lists, by the place they render
// before, the commits a later merge took from what an earlier one left
// out (moved marks them: they do not render at their own place); and per
// merge place, how many commits it could take (cands) and took (took,
// merge commits not counted).
type picks struct {
	out, moved  []bool
	at          map[int][]int
	cands, took map[int]int
}

// selection works out what every merge of the view takes. A merge takes
// the commits its other parent brings in (its block); a selective merge
// only those its selection names, the rest of the block is left out. A
// later merge whose other parent reaches a commit left out — through the
// child's own history, not back through the merge that left it out —
// offers it again: a plain merge takes it, a selective one when its
// selection names it. Such a commit renders just before the later
// merge's block (at the merge when the block is empty).
func (v *view) selection() picks {
	var pk picks
	pending, low := 0, len(v.lin.order)
	for k, c := range v.lin.order {
		if c.Operation != OpMerge || len(c.Parents) == 0 {
			continue
		}
		sel := selectionOf(c)
		if sel == nil && pending == 0 {
			continue
		}
		// The range's end is the last parent; into a tract without
		// commits the merge has no other.
		end, found := v.lin.index(c.Parents[len(c.Parents)-1])
		if !found || end > k {
			continue
		}
		floor := -1
		if p, found := v.lin.index(c.Parents[0]); found && len(c.Parents) > 1 {
			floor = p
		}
		block := v.reachable(end, floor)
		var again []int
		if pending > 0 {
			again = v.pendingFrom(end, pk.out, low)
		}
		if pk.cands == nil {
			pk.out, pk.moved = make([]bool, len(v.lin.order)), make([]bool, len(v.lin.order))
			pk.at, pk.cands, pk.took = map[int][]int{}, map[int]int{}, map[int]int{}
		}
		var inRange map[int]bool
		if sel != nil && sel.From != "" {
			inRange = map[int]bool{}
			for _, i := range v.covered(sel.From, end) {
				inRange[i] = true
			}
		}
		keep := func(i int) bool { return v.selects(sel, inRange, i) }
		count := func(i int) {
			if v.lin.order[i].Operation != OpMerge {
				pk.took[k]++
			}
		}
		for _, i := range block {
			if v.lin.order[i].Operation != OpMerge {
				pk.cands[k]++
			}
			if keep(i) {
				count(i)
			} else if !pk.out[i] {
				pk.out[i] = true
				pending++
				low = min(low, i)
			}
		}
		slices.Sort(again)
		place := k
		if len(block) > 0 {
			place = slices.Min(block)
		}
		for _, i := range again {
			if v.lin.order[i].Operation != OpMerge {
				pk.cands[k]++
			}
			if keep(i) {
				count(i)
				pk.out[i], pk.moved[i] = false, true
				pending--
				pk.at[place] = append(pk.at[place], i)
			}
		}
	}
	return pk
}

// selects reports whether selection sel (nil: everything), with the
// places of its range (nil: no range), takes the commit at place i.
func (v *view) selects(sel *Selection, inRange map[int]bool, i int) bool {
	if sel == nil {
		return true
	}
	content := &v.entries[i].content
	return (inRange == nil || inRange[i]) &&
		(len(sel.Types) == 0 || slices.Contains(sel.Types, content.Type)) &&
		(len(sel.Roles) == 0 || slices.Contains(sel.Roles, content.Role)) &&
		(len(sel.Commits) == 0 || slices.Contains(sel.Commits, v.lin.order[i].Hash))
}

// pendingFrom lists the commits marked in out that top reaches through
// parents placed at or above low, not following the other parents of a
// selective merge (what it left out stays left out for whatever builds on
// it: a child's selection holds in its parent too).
func (v *view) pendingFrom(top int, out []bool, low int) []int {
	seen := map[int]bool{top: true}
	stack := []int{top}
	var found []int
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if out[i] {
			found = append(found, i)
		}
		c := v.lin.order[i]
		parents := c.Parents
		if selectionOf(c) != nil && len(parents) > 1 {
			parents = parents[:1]
		}
		for _, p := range parents {
			if pi, ok := v.lin.index(p); ok && pi >= low && !seen[pi] {
				seen[pi] = true
				stack = append(stack, pi)
			}
		}
	}
	return found
}

// reachable lists the places of the view reachable from place top through
// parents placed after floor: the block a merge brings in when top is its
// other parent and floor its first parent's place.
func (v *view) reachable(top, floor int) []int {
	if top <= floor {
		return nil
	}
	seen := map[int]bool{top: true}
	stack := []int{top}
	var out []int
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, i)
		for _, p := range v.lin.order[i].Parents {
			if pi, ok := v.lin.index(p); ok && pi > floor && !seen[pi] {
				seen[pi] = true
				stack = append(stack, pi)
			}
		}
	}
	return out
}
