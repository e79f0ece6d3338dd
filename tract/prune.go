package tract

import (
	"context"
	"fmt"
)

// PruneReason is the reason a prune's skip annotations carry.
const PruneReason = "prune: tool result"

// PruneOptions select the tool results a prune hides from the tract's
// compile. Every filter that is set must hold.
type PruneOptions struct {
	// OlderThan keeps the results of the newest N turns (a turn starts
	// at a user's message): only results with at least N user messages
	// after them are pruned (0: any).
	OlderThan int
	// KeepLast keeps the newest K tool results whatever their age.
	KeepLast int
	// LargerThan prunes only results of more than T tokens (0: any).
	LargerThan int
	// DryRun lists what would be pruned and annotates nothing.
	DryRun bool
	// Encoding names the token encoding of LargerThan and the counts.
	Encoding string
}

// Validate checks the options before any store is opened.
func (o PruneOptions) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"older-than", o.OlderThan}, {"keep-last", o.KeepLast}, {"larger-than", o.LargerThan}} {
		if f.v < 0 {
			return &ValidationError{Field: f.name, Value: fmt.Sprint(f.v), Reason: "must not be negative"}
		}
	}
	return nil
}

// PruneResult lists the tool results a prune hid (or, dry, would hide).
type PruneResult struct {
	Tract  string    `json:"tract"`
	Pruned []Dropped `json:"pruned"`
	Tokens int       `json:"tokens"`
	DryRun bool      `json:"dryRun"`
}

// Prune hides stale tool results from the tract's compile: each one the
// options select gets the tract's skip annotation with [PruneReason]. The
// originals stay (an annotation normal brings one back), pinned results are
// never pruned, and a call whose result is pruned compiles as text of its
// turn (see the API formats' repairs).
func (r *Repo) Prune(ctx context.Context, tractName string, o PruneOptions) (PruneResult, error) {
	if err := o.Validate(); err != nil {
		return PruneResult{}, err
	}
	res, err := r.CompileCold(ctx, tractName, CompileOptions{Encoding: o.Encoding})
	if err != nil {
		return PruneResult{}, err
	}
	out := PruneResult{Tract: res.Tract, Pruned: []Dropped{}, DryRun: o.DryRun}
	// The selection a compile-time policy of the same filters makes.
	_, picked, err := r.applyPrune(ctx, res, PrunePolicy{ToolResults: true, OlderThan: o.OlderThan, KeepLast: o.KeepLast, LargerThan: o.LargerThan})
	if err != nil {
		return out, err
	}
	for _, p := range picked {
		d := p.Dropped
		if !o.DryRun {
			if _, err := r.Annotate(ctx, tractName, string(d.Commit), Skip, PruneReason); err != nil {
				return out, err
			}
		}
		out.Pruned = append(out.Pruned, d)
		out.Tokens += d.Tokens
	}
	return out, nil
}
