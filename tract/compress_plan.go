package tract

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// ErrNoBudget is a plan asked for without a budget to plan for.
var ErrNoBudget = errors.New("no budget: give --budget N or store one with 'lineage tract config budget N'")

// PlanOptions select what a compression plan aims for.
type PlanOptions struct {
	// Budget is the most tokens the context should use; 0 means the
	// tract's stored budget.
	Budget   int
	Encoding string
}

// Validate checks the options before any store is opened.
func (o PlanOptions) Validate() error {
	if o.Budget < 0 {
		return &ValidationError{Field: "budget", Value: fmt.Sprint(o.Budget), Reason: "must be positive"}
	}
	return nil
}

// CompressPlan names the oldest range whose summary would bring a context
// under its budget, with the messages the summary has to stand in for.
type CompressPlan struct {
	Tract    string `json:"tract"`
	Head     Hash   `json:"head"`
	Encoding string `json:"encoding"`
	Tokens   int    `json:"tokens"`
	Budget   int    `json:"budget"`
	// Fits is false when even compressing every message that is not
	// PINNED leaves the context over the budget.
	Fits   bool        `json:"fits"`
	Ranges []PlanRange `json:"ranges"`
}

// PlanRange is one range to compress.
type PlanRange struct {
	// Range is FROM..TO as compress takes it.
	Range string `json:"range"`
	From  Hash   `json:"from"`
	To    Hash   `json:"to"`
	// Messages are the compiled messages the summary replaces.
	Messages []Message `json:"messages"`
	Tokens   int       `json:"tokens"`
	// MaxSummaryTokens is the most tokens the summary's text may use for
	// the context to fit the budget.
	MaxSummaryTokens int `json:"maxSummaryTokens"`
}

// PlanCompress plans a compression of the tract's HEAD under o.Budget (or
// the stored budget): the shortest run of the oldest first-parent commits
// whose messages, replaced by one summary, leave the context within the
// budget with room for the summary (a tenth of the budget, at least 16
// tokens).
func (r *Repo) PlanCompress(ctx context.Context, tractName string, o PlanOptions) (CompressPlan, error) {
	if err := o.Validate(); err != nil {
		return CompressPlan{}, err
	}
	counter, err := r.counter(o.Encoding)
	if err != nil {
		return CompressPlan{}, &ValidationError{Field: "encoding", Value: o.Encoding, Reason: err.Error()}
	}
	t, head, err := r.tractRef(ctx, tractName, HeadRef)
	if err != nil {
		return CompressPlan{}, err
	}
	if o.Budget == 0 {
		cfg, err := r.Config(ctx, tractName)
		if err != nil {
			return CompressPlan{}, err
		}
		if o.Budget = cfg.Budget; o.Budget == 0 {
			return CompressPlan{}, ErrNoBudget
		}
	}
	v, err := r.cache.get(ctx, r, t, counter, head)
	if err != nil {
		return CompressPlan{}, err
	}
	plan := CompressPlan{Tract: t.Name, Head: head, Encoding: counter.Encoding(), Tokens: v.tokens + tokensPrimer, Budget: o.Budget, Fits: true, Ranges: []PlanRange{}}
	if plan.Tokens <= o.Budget {
		return plan, nil
	}
	chain := v.firstParentPlaces(head)
	// Group the compressible messages by first-parent commit: a range
	// always takes a commit with the merged blocks just before it.
	segment := func(slot int) int { return sort.SearchInts(chain, slot) }
	room := max(16, o.Budget/10)
	pr := PlanRange{Messages: []Message{}}
	first, last := -1, -1
	for i, m := range v.rendered {
		if m.Priority == Pinned {
			continue
		}
		seg := segment(m.Slot)
		if last >= 0 && seg != last && plan.Tokens-pr.Tokens+tokensPerMessage+room <= o.Budget {
			break
		}
		if first < 0 {
			first = seg
		}
		last = seg
		pr.Messages = append(pr.Messages, v.rendered[i])
		pr.Tokens += m.Tokens
	}
	if first < 0 {
		plan.Fits = false
		return plan, nil
	}
	pr.From, pr.To = v.lin.order[chain[first]].Hash, v.lin.order[chain[last]].Hash
	pr.Range = pr.From.Short() + ".." + pr.To.Short()
	pr.MaxSummaryTokens = o.Budget - (plan.Tokens - pr.Tokens) - tokensPerMessage
	plan.Fits = pr.MaxSummaryTokens > 0
	plan.Ranges = append(plan.Ranges, pr)
	return plan, nil
}

// firstParentPlaces lists, ascending, the places of head's first-parent
// history in the view.
func (v *view) firstParentPlaces(head Hash) []int {
	var out []int
	for h := head; h != ""; {
		i, ok := v.lin.index(h)
		if !ok {
			break
		}
		out = append(out, i)
		h = ""
		if c := v.lin.order[i]; len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	sort.Ints(out)
	return out
}
