package tract

import (
	"context"
)

// DiffSide is one end of a diff: a ref and its compiled size.
type DiffSide struct {
	Ref      string `json:"ref"`
	Head     Hash   `json:"head"`
	Messages int    `json:"messages"`
	Tokens   int    `json:"tokens"`
}

// Change is one difference between two compiled contexts.
type Change struct {
	// Kind is added, removed, edited or reprioritized.
	Kind   string `json:"kind"`
	Commit Hash   `json:"commit"`
	Tract  string `json:"tract"`
	Role   string `json:"role"`
	Type   Type   `json:"type"`
	// Before and After are the message texts (the side that has it).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// PriorityBefore and PriorityAfter are set for reprioritized messages.
	PriorityBefore Priority `json:"priorityBefore,omitempty"`
	PriorityAfter  Priority `json:"priorityAfter,omitempty"`
}

// DiffResult is what changed between the compiled contexts at two refs.
type DiffResult struct {
	Tract   string   `json:"tract"`
	From    DiffSide `json:"from"`
	To      DiffSide `json:"to"`
	Changes []Change `json:"changes"`
}

// Diff compiles the tract at refs a and b and lists what changed, in b's
// order with removed messages where they stood: messages added or removed
// (by commit), edited (same commit, other text) and reprioritized.
func (r *Repo) Diff(ctx context.Context, tractName, a, b, encoding string) (DiffResult, error) {
	if d, ok, err := r.diffStored(ctx, tractName, a, b, encoding); err != nil || ok {
		return d, err
	}
	ra, err := r.Compile(ctx, tractName, CompileOptions{At: a, Encoding: encoding})
	if err != nil {
		return DiffResult{}, err
	}
	rb, err := r.Compile(ctx, tractName, CompileOptions{At: b, Encoding: encoding})
	if err != nil {
		return DiffResult{}, err
	}
	return diffOf(ra, rb, a, b, len(ra.Messages), len(rb.Messages)), nil
}

// diffOf lists what changed from ra, the compile at a, to rb, the one at
// b; they hold all their compile's messages or (diffStored) the ends after
// a prefix they share, the compiles counting countA and countB.
func diffOf(ra, rb Result, a, b string, countA, countB int) DiffResult {
	out := DiffResult{Tract: ra.Tract, Changes: []Change{},
		From: DiffSide{Ref: a, Head: ra.Head, Messages: countA, Tokens: ra.Tokens},
		To:   DiffSide{Ref: b, Head: rb.Head, Messages: countB, Tokens: rb.Tokens}}
	inA := make(map[Hash]int, len(ra.Messages))
	for i, m := range ra.Messages {
		inA[m.Commit] = i
	}
	inB := make(map[Hash]bool, len(rb.Messages))
	for _, m := range rb.Messages {
		inB[m.Commit] = true
	}
	next := 0 // first message of a not passed yet
	removedUpTo := func(end int) {
		for ; next < end; next++ {
			if m := ra.Messages[next]; !inB[m.Commit] {
				out.Changes = append(out.Changes, change("removed", m, m.Content, ""))
			}
		}
	}
	var added []Change // shown after what they replace
	flush := func() {
		out.Changes = append(out.Changes, added...)
		added = added[:0]
	}
	for _, m := range rb.Messages {
		i, ok := inA[m.Commit]
		if !ok {
			added = append(added, change("added", m, "", m.Content))
			continue
		}
		removedUpTo(i + 1)
		flush()
		old := ra.Messages[i]
		if old.Content != m.Content || old.Role != m.Role {
			out.Changes = append(out.Changes, change("edited", m, old.Content, m.Content))
		}
		if old.Priority != m.Priority {
			c := change("reprioritized", m, "", "")
			c.PriorityBefore, c.PriorityAfter = old.Priority, m.Priority
			out.Changes = append(out.Changes, c)
		}
	}
	removedUpTo(len(ra.Messages))
	flush()
	return out
}

func change(kind string, m Message, before, after string) Change {
	return Change{Kind: kind, Commit: m.Commit, Tract: m.Tract, Role: m.Role, Type: m.Type, Before: before, After: after}
}
