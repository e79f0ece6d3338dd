package tract

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/internal/tokens"
)

// PrunePolicy is a prune applied when a tract is compiled, leaving its
// store untouched: the same selection as [Repo.Prune] (ToolResults with
// its filters) and, with FailedTurns, the failed steps of turns (see
// [FailedTurnsRule]). The zero policy prunes nothing. Stored as the tract
// setting "prune" (`tract config prune …`) in the form String writes.
type PrunePolicy struct {
	// ToolResults prunes the tool results the filters select, as `tract
	// prune --tool-results` would annotate them.
	ToolResults bool `json:"toolResults,omitempty"`
	OlderThan   int  `json:"olderThan,omitempty"`
	KeepLast    int  `json:"keepLast,omitempty"`
	LargerThan  int  `json:"largerThan,omitempty"`
	// FailedTurns leaves out each failed tool step: the failed result,
	// the call that asked for it when every call of that message failed,
	// and the reasoning right before that call.
	FailedTurns bool `json:"failedTurns,omitempty"`
}

// Rules a compile-time prune names for each message it left out.
const (
	ToolResultsRule = "tool-results"
	FailedTurnsRule = "failed-turns"
)

// Active reports whether the policy prunes anything.
func (p PrunePolicy) Active() bool { return p.ToolResults || p.FailedTurns }

// String is the policy as `tract config prune` and --prune take it:
// "tool-results older-than=3 keep-last=2 larger-than=2000 failed-turns",
// "none" for the zero policy.
func (p PrunePolicy) String() string {
	var w []string
	if p.ToolResults {
		w = append(w, ToolResultsRule)
		for _, f := range []struct {
			name string
			v    int
		}{{"older-than", p.OlderThan}, {"keep-last", p.KeepLast}, {"larger-than", p.LargerThan}} {
			if f.v > 0 {
				w = append(w, f.name+"="+strconv.Itoa(f.v))
			}
		}
	}
	if p.FailedTurns {
		w = append(w, FailedTurnsRule)
	}
	if len(w) == 0 {
		return "none"
	}
	return strings.Join(w, " ")
}

// ParsePrunePolicy parses a policy as String writes it (words in any
// order, spaces or commas between them); "" and "none" are the zero policy.
func ParsePrunePolicy(s string) (PrunePolicy, error) {
	var p PrunePolicy
	bad := func(reason string) (PrunePolicy, error) {
		return PrunePolicy{}, &ValidationError{Field: "prune", Value: s, Reason: reason}
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(words) == 1 && words[0] == "none" {
		return p, nil
	}
	filters := false
	for _, w := range words {
		name, value, hasValue := strings.Cut(w, "=")
		switch {
		case w == ToolResultsRule:
			p.ToolResults = true
		case w == FailedTurnsRule:
			p.FailedTurns = true
		case hasValue && (name == "older-than" || name == "keep-last" || name == "larger-than"):
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				return bad(name + " wants a number of 0 or more")
			}
			filters = true
			switch name {
			case "older-than":
				p.OlderThan = n
			case "keep-last":
				p.KeepLast = n
			default:
				p.LargerThan = n
			}
		default:
			return bad(fmt.Sprintf("unknown word %q (want tool-results, older-than=N, keep-last=K, larger-than=T, failed-turns or none)", w))
		}
	}
	if filters && !p.ToolResults {
		return bad("older-than, keep-last and larger-than filter tool-results: name it too")
	}
	return p, nil
}

// Pruned is a message a compile-time prune left out, and by which rule.
type Pruned struct {
	Dropped
	Rule string `json:"rule"`
}

// compilePruned compiles t at head whole, leaves out what o.Prune selects
// and then applies the budget: what the prune left out never costs the
// budget a message.
func (r *Repo) compilePruned(ctx context.Context, t Tract, counter tokens.Counter, head Hash, o CompileOptions, cached bool) (Result, error) {
	whole := o
	whole.Budget, whole.Scratch, whole.Uncounted, whole.Prune = 0, nil, false, nil
	full, err := r.compileAt(ctx, nil, t, counter, head, whole, cached)
	if err != nil {
		return Result{}, err
	}
	out, pruned, err := r.applyPrune(ctx, full, *o.Prune)
	if err != nil {
		return Result{}, err
	}
	out.Pruned = pruned
	if o.Budget > 0 {
		budget := o.Budget
		out.Budget = &budget // as every budgeted compile says (it was null)
		if err := applyBudget(&out, o.Budget); err != nil {
			return Result{}, err
		}
	}
	return out, nil
}

// applyPrune is res without the messages p selects (a copy: res's slices
// belong to the compile cache), and those messages in compile order.
func (r *Repo) applyPrune(ctx context.Context, res Result, p PrunePolicy) (Result, []Pruned, error) {
	f := newPruneFacts(p, len(res.Messages))
	for i := range res.Messages {
		f.add(&res.Messages[i])
	}
	rule, _, _, err := r.rules(ctx, f, p)
	if err != nil {
		return Result{}, nil, err
	}
	out := res
	out.Messages = make([]Message, 0, len(res.Messages))
	out.Dropped = []Dropped{}
	var pruned []Pruned
	for i, m := range res.Messages {
		if rule[i] == 0 {
			out.Messages = append(out.Messages, m)
			continue
		}
		pruned = append(pruned, Pruned{Dropped: Dropped{Commit: m.Commit, Tract: m.Tract, Type: m.Type, Priority: m.Priority, Tokens: m.Tokens}, Rule: pruneRuleNames[rule[i]]})
		out.Tokens -= m.Tokens
	}
	return out, pruned, nil
}

// failedMeta is the part of a commit's meta that marks a failed tool
// result: `"isError": true`, as package sessions records a harness's
// failed tool call.
type failedMeta struct {
	IsError bool `json:"isError"`
}
