package tract

import (
	"context"
	"math"
)

// Pressure is how full a tract's context is against its stored budget,
// reported after every commit: the compiled tokens, the budget, their ratio
// and, at or above the warning threshold, the compression that brings the
// context back under it (lineage never calls a model: the caller writes
// the summary and runs compress).
type Pressure struct {
	Tokens int `json:"tokens"`
	// Budget is the stored budget; nil when none (then Pressure is nil too).
	Budget *int `json:"budget"`
	// Ratio is Tokens / Budget, rounded to three decimals.
	Ratio  *float64 `json:"pressure"`
	WarnAt float64  `json:"warnAt"`
	// Warn says Ratio is at or above WarnAt.
	Warn bool `json:"warn"`
	// Plan is, with Warn, the oldest range whose summary brings the context
	// under WarnAt of the budget (compress --plan --budget that many).
	Plan *PressurePlan `json:"plan,omitempty"`
}

// PressurePlan is a compression proposal: the range, the messages it holds
// and the tokens they use, and the most a summary may use.
type PressurePlan struct {
	Range            string `json:"range"`
	Messages         int    `json:"messages"`
	Tokens           int    `json:"tokens"`
	Target           int    `json:"target"`
	MaxSummaryTokens int    `json:"maxSummaryTokens"`
}

// Pressure reports the tract's context pressure at HEAD.
func (r *Repo) Pressure(ctx context.Context, tractName string) (Pressure, error) {
	cfg, err := r.Config(ctx, tractName)
	if err != nil {
		return Pressure{}, err
	}
	res, err := r.Compile(ctx, tractName, CompileOptions{})
	if err != nil {
		return Pressure{}, err
	}
	return r.pressureOf(ctx, tractName, cfg, res.Tokens)
}

func (r *Repo) pressureOf(ctx context.Context, tractName string, cfg Config, tokens int) (Pressure, error) {
	p := Pressure{Tokens: tokens, WarnAt: cfg.WarnAt}
	if cfg.Budget <= 0 {
		return p, nil
	}
	b := cfg.Budget
	ratio := math.Round(float64(tokens)/float64(b)*1000) / 1000
	p.Budget, p.Ratio = &b, &ratio
	p.Warn = float64(tokens) >= cfg.WarnAt*float64(b)
	if !p.Warn {
		return p, nil
	}
	target := max(1, int(cfg.WarnAt*float64(b)))
	plan, err := r.PlanCompress(ctx, tractName, PlanOptions{Budget: target})
	if err != nil {
		return Pressure{}, err
	}
	if len(plan.Ranges) == 0 && tokens <= target && target > 1 {
		// Exactly at the threshold: the context is not over the
		// target, so plan for one token under it (else the warning
		// would say there is nothing to compress).
		target--
		if plan, err = r.PlanCompress(ctx, tractName, PlanOptions{Budget: target}); err != nil {
			return Pressure{}, err
		}
	}
	if len(plan.Ranges) > 0 {
		pr := plan.Ranges[0]
		p.Plan = &PressurePlan{Range: pr.Range, Messages: len(pr.Messages), Tokens: pr.Tokens, Target: target, MaxSummaryTokens: pr.MaxSummaryTokens}
	}
	return p, nil
}

// CommitResult is a commit with the context pressure after it.
type CommitResult struct {
	Commit   `json:",inline"`
	Pressure `json:",inline"`
}
