package handoff

import (
	"context"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// Preview is what a handoff without a caller's summary would compose,
// made without writing anything: the session compiled at the turn, the
// injected context left out, the harness's summary and the tagged commits
// pinned, under the budget (what the web page shows for a read-only store).
type Preview struct {
	Session string     `json:"session"`
	At      tract.Hash `json:"at"`
	// Summary is harness or none (a preview has no caller's summary).
	Summary string `json:"summary"`
	// Tract is the tract `lineage handoff SESSION@AT --budget N` would
	// make for these inputs.
	Tract string `json:"tract"`
	// Result is the composed history: its messages, tokens, dropped and
	// pruned.
	Result tract.Result `json:"result"`
	// Skipped are the commits of injected context left out.
	Skipped int `json:"skipped"`
	// Text is the history as text (the part of a harness's pending handoff
	// inside its frame).
	Text string `json:"text"`
}

// PreviewOf composes o's handoff in memory (o.Summary must be empty: a
// caller's summary is a commit only a write can make).
func PreviewOf(ctx context.Context, o Options) (Preview, error) {
	if o.Summary != "" {
		return Preview{}, fmt.Errorf("a preview takes no caller's summary")
	}
	if o.Budget < 0 {
		return Preview{}, &tract.ValidationError{Field: "budget", Value: fmt.Sprint(o.Budget), Reason: "must not be negative (0: no budget)"}
	}
	t, err := o.Repo.Tract(ctx, o.Session.Tract)
	if err != nil {
		return Preview{}, err
	}
	at := o.At
	if at == "" {
		at = tract.HeadRef
	}
	c, err := o.Repo.Resolve(ctx, t, at)
	if err != nil {
		return Preview{}, err
	}
	full, err := o.Repo.CompileCold(ctx, o.Session.Tract, tract.CompileOptions{At: string(c), Encoding: o.Encoding, Prune: o.Prune})
	if err != nil {
		return Preview{}, err
	}
	p, err := plan(ctx, o, full)
	if err != nil {
		return Preview{}, err
	}
	pv := Preview{Session: o.Session.Tract, At: c, Summary: p.summary, Tract: TractName(o.Session.Tract, c, "", o.Budget, o.Prune)}
	prio := map[tract.Hash]tract.Priority{}
	for _, a := range p.annotations {
		prio[a.commit] = a.priority
	}
	res := full
	res.Messages = make([]tract.Message, 0, len(full.Messages))
	for _, m := range full.Messages {
		switch q, ok := prio[m.Commit]; {
		case ok && q == tract.Skip:
			pv.Skipped++
			res.Tokens -= m.Tokens
			continue
		case ok:
			m.Priority = q
		}
		res.Messages = append(res.Messages, m)
	}
	if o.Budget > 0 {
		if err := tract.ApplyBudget(&res, o.Budget); err != nil {
			return Preview{}, err
		}
	}
	pv.Result = res
	if len(res.Messages) > 0 {
		out, err := wire.Render(res, wire.FormatText)
		if err != nil {
			return Preview{}, err
		}
		pv.Text = out.Text
	}
	return pv, nil
}
