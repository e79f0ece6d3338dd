package handoff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// Target is where a handoff goes: a harness's next session, or a request
// printed for a model API.
type Target string

// Targets.
const (
	ToText      Target = "text"
	ToOpenAI    Target = "openai"
	ToAnthropic Target = "anthropic"
	ToClaude    Target = "claude"
	ToCodex     Target = "codex"
	ToGemini    Target = "gemini"
)

// Targets lists the targets, harnesses first.
func Targets() []Target {
	return []Target{ToClaude, ToCodex, ToGemini, ToText, ToOpenAI, ToAnthropic}
}

// Harness reports whether t is a harness (a pending handoff and a command
// to start it) rather than a printed request.
func (t Target) Harness() bool { return t == ToClaude || t == ToCodex || t == ToGemini }

// ParseTarget checks a --to value.
func ParseTarget(s string) (Target, error) {
	if slices.Contains(Targets(), Target(s)) {
		return Target(s), nil
	}
	return "", &compose.ValidationError{Field: "to", Value: s, Reason: "want claude, codex, gemini, text, openai or anthropic"}
}

// Options select what a handoff composes.
type Options struct {
	// Repo is the sessions store; Session the session handed off.
	Repo    *tract.Repo
	Session sessions.Info
	// At is a ref of the session's tract (a commit, a tag, HEAD~N): the
	// turn the new session continues from; "" is its HEAD.
	At string
	// Summary is the caller's summary of the session up to the tail; ""
	// uses the harness's own compaction summary when the session has one.
	Summary string
	// Budget, when positive, is the most tokens the handoff may use.
	Budget int
	// Encoding names the token encoding; "" means o200k_base.
	Encoding string
	// To is where it goes; "" means text.
	To Target
	// Prune, when set, is the compile-time prune policy applied to the
	// session's messages (the tail's stale tool output, failed steps): the
	// store is untouched, and the handoff's tract name depends on it.
	Prune *tract.PrunePolicy
	// Instructions configure the project's AGENTS.md chain that a request
	// for a model API carries (Cwd absolute). A harness target carries
	// none: the harness loads its own, and lineage's hook the rest.
	Instructions instructions.Options
}

// Summary sources.
const (
	SummaryCaller  = "caller"
	SummaryHarness = "harness"
	SummaryNone    = "none"
)

// Result is a composed handoff.
type Result struct {
	// Session is the session's tract, At the commit handed off from.
	Session string     `json:"session"`
	Harness string     `json:"harness"`
	At      tract.Hash `json:"at"`
	To      Target     `json:"to"`
	// Tract is the handoff's own tract, spawned from the session at At.
	Tract string `json:"tract"`
	// Created is false when an earlier handoff of the same inputs made
	// the tract already.
	Created bool `json:"created"`
	// Summary says whose summary leads: caller, harness or none.
	Summary string `json:"summary"`
	// Tail is the first commit of the turns kept after the summary ("" for
	// none).
	Tail tract.Hash `json:"tail,omitempty"`
	// Context is the composition, with the provenance of every block.
	Context compose.Result `json:"context"`
}

// TractName is the handoff tract's name for these inputs: the same
// session, commit, summary and budget give the same tract.
func TractName(session string, at tract.Hash, summary string, budget int, prune *tract.PrunePolicy) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s", session, at, budget, summary)
	if prune != nil && prune.Active() {
		// Without a policy the name is what it was before policies.
		fmt.Fprintf(h, "\x00prune %s", prune)
	}
	return "handoff-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Compose composes the handoff o describes and records it as a tract
// spawned from the session (see the package comment).
func Compose(ctx context.Context, o Options) (Result, error) {
	if o.To == "" {
		o.To = ToText
	}
	if _, err := ParseTarget(string(o.To)); err != nil {
		return Result{}, err
	}
	if o.Budget < 0 {
		return Result{}, &compose.ValidationError{Field: "budget", Value: fmt.Sprint(o.Budget), Reason: "must not be negative (0: no budget)"}
	}
	sess := o.Session.Tract
	t, err := o.Repo.Tract(ctx, sess)
	if err != nil {
		return Result{}, err
	}
	at := o.At
	if at == "" {
		at = tract.HeadRef
	}
	c, err := o.Repo.Resolve(ctx, t, at)
	if err != nil {
		return Result{}, err
	}
	res := Result{Session: sess, Harness: string(o.Session.Harness), At: c, To: o.To,
		Tract: TractName(sess, c, o.Summary, o.Budget, o.Prune), Summary: SummaryNone}
	full, err := o.Repo.CompileCold(ctx, sess, tract.CompileOptions{At: string(c), Encoding: o.Encoding, Prune: o.Prune})
	if err != nil {
		return Result{}, err
	}
	p, err := plan(ctx, o, full)
	if err != nil {
		return Result{}, err
	}
	res.Summary, res.Tail = p.summary, p.tail
	if existing, err := o.Repo.Tract(ctx, res.Tract); err == nil {
		if existing.Spawn == nil || existing.Spawn.Commit != c || existing.Spawn.Parent != t.ID {
			return Result{}, fmt.Errorf("tract %s exists and is not a handoff of %s at %s", res.Tract, sess, c.Short())
		}
	} else if !errors.Is(err, tract.ErrNotFound) {
		return Result{}, err
	} else {
		if err := record(ctx, o, res, p); err != nil {
			return Result{}, err
		}
		res.Created = true
	}
	res.Context, err = compose.Compile(ctx, composeOptions(o, res.Tract))
	if err != nil {
		if res.Created {
			// Nothing half-made: a handoff over its budget leaves no tract,
			// so the error names none of its commits.
			_ = o.Repo.RemoveTract(ctx, res.Tract)
			renameOwn(err, res.Tract)
		}
		return Result{}, err
	}
	return res, nil
}

// composeOptions are the compile of the handoff tract: a harness target
// without the project's instructions (the harness loads them).
func composeOptions(o Options, name string) compose.Options {
	co := compose.Options{Repo: o.Repo, Tract: name, Cold: true, Budget: o.Budget, Encoding: o.Encoding, Prune: o.Prune,
		Instructions: o.Instructions, Format: compose.FormatText}
	switch o.To {
	case ToOpenAI:
		co.Format = compose.FormatOpenAI
	case ToAnthropic:
		co.Format = compose.FormatAnthropic
	}
	if o.To.Harness() {
		co.Instructions.Config = instructions.Config{}
	}
	return co
}

// annotation is one priority the handoff tract gives a commit.
type annotation struct {
	commit   tract.Hash
	priority tract.Priority
	reason   string
}

// handoffPlan is what the handoff tract records over the session.
type handoffPlan struct {
	annotations []annotation
	// compress is the caller's summary's range, "" without one.
	compress string
	summary  string
	tail     tract.Hash
}

// plan works out, from the session compiled at the commit, what the
// handoff tract records: the injected context skipped, the harness's
// summary and the tagged commits pinned, and the caller's summary's range.
func plan(ctx context.Context, o Options, full tract.Result) (handoffPlan, error) {
	p := handoffPlan{summary: SummaryNone}
	compiled := map[tract.Hash]bool{}
	for _, m := range full.Messages {
		compiled[m.Commit] = true
		switch m.Type {
		case tract.TypeInstruction:
			p.annotations = append(p.annotations, annotation{m.Commit, tract.Skip, "handoff: context the old harness injected"})
		case tract.TypeSummary:
			if o.Summary == "" {
				p.summary = SummaryHarness
				p.annotations = append(p.annotations, annotation{m.Commit, tract.Pinned, "handoff: the harness's compaction summary"})
			}
		}
	}
	tags, err := o.Repo.Tags(ctx, o.Session.Tract)
	if err != nil {
		return p, err
	}
	for _, tg := range tags {
		if compiled[tg.Commit] {
			p.annotations = append(p.annotations, annotation{tg.Commit, tract.Pinned, "handoff: tagged " + tg.Name})
		}
	}
	if o.Summary == "" {
		p.tail = firstTurn(full.Messages, 0)
		return p, nil
	}
	p.summary = SummaryCaller
	counter, err := o.Repo.Counter(o.Encoding)
	if err != nil {
		return p, err
	}
	start := tailStart(full.Messages, o.Budget, counter.Count(o.Summary))
	to := full.Head
	if start < len(full.Messages) {
		p.tail = full.Messages[start].Commit
		shown, err := o.Repo.Show(ctx, o.Session.Tract, string(p.tail))
		if err != nil {
			return p, err
		}
		to = shown.Commit.Parents[0]
	}
	p.compress = string(rangeFrom(full.Messages)) + ".." + string(to)
	return p, nil
}

// isTurn reports whether m starts a turn: a user's own message.
func isTurn(m tract.Message) bool {
	return m.Type == tract.TypeMessage && m.Role == "user"
}

// firstTurn is the commit of the first turn at or after index i ("" for
// none).
func firstTurn(ms []tract.Message, i int) tract.Hash {
	for ; i < len(ms); i++ {
		if isTurn(ms[i]) || ms[i].Type == tract.TypeSummary {
			return ms[i].Commit
		}
	}
	return ""
}

// tailStart is the index of the first message of the tail a caller's
// summary leaves: the newest whole turns whose messages fit the budget
// beside the summary and the pinned messages (without a budget, the last
// turn). The first turn is never in the tail: the summary stands for it.
// len(ms) means no tail.
func tailStart(ms []tract.Message, budget, summaryTokens int) int {
	var starts []int
	for i, m := range ms {
		if isTurn(m) {
			starts = append(starts, i)
		}
	}
	if len(starts) < 2 {
		return len(ms)
	}
	starts = starts[1:]
	if budget <= 0 {
		return starts[len(starts)-1]
	}
	fixed := tract.PrimerTokens + summaryTokens + 3
	for _, m := range ms {
		if m.Priority == tract.Pinned && m.Type != tract.TypeInstruction {
			fixed += m.Tokens
		}
	}
	best, used := len(ms), 0
	for k := len(starts) - 1; k >= 0; k-- {
		end := len(ms)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		for _, m := range ms[starts[k]:end] {
			if m.Priority != tract.Pinned {
				used += m.Tokens
			}
		}
		if fixed+used > budget {
			break
		}
		best = starts[k]
	}
	return best
}

// rangeFrom is the oldest commit a caller's summary covers: the first
// compiled message's, or, for a summary, the first it stands for.
func rangeFrom(ms []tract.Message) tract.Hash {
	m := ms[0]
	if m.Type == tract.TypeSummary && len(m.Summarizes) > 0 {
		return m.Summarizes[0]
	}
	return m.Commit
}

// record spawns the handoff tract from the session at res.At and writes
// the plan's annotations and summary; on an error it removes the tract.
func record(ctx context.Context, o Options, res Result, p handoffPlan) (err error) {
	purpose := "handoff"
	if _, err := o.Repo.Spawn(ctx, res.Session, res.Tract, tract.SpawnOptions{Purpose: purpose, Mode: tract.SpawnReference, At: string(res.At)}); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = o.Repo.RemoveTract(ctx, res.Tract)
		}
	}()
	for _, a := range p.annotations {
		if _, err := o.Repo.Annotate(ctx, res.Tract, string(a.commit), a.priority, a.reason); err != nil {
			return err
		}
	}
	if p.compress != "" {
		cr, err := o.Repo.Compress(ctx, res.Tract, tract.CompressOptions{Range: p.compress, Summary: strings.TrimSpace(o.Summary),
			Encoding: o.Encoding, Message: "handoff summary"})
		if err != nil {
			return fmt.Errorf("summary over %s: %w", p.compress, err)
		}
		// The summary leads the handoff: a budget never drops it.
		if _, err := o.Repo.Annotate(ctx, res.Tract, string(cr.Commit), tract.Pinned, "handoff: the caller's summary"); err != nil {
			return err
		}
	}
	return nil
}

// renameOwn names the parts of a budget error that were the removed
// handoff tract's own commits by what they were: the caller's summary (the
// only message the handoff tract writes). The session's commits keep their
// names: they still exist.
func renameOwn(err error, own string) {
	var be *compose.BudgetError
	if !errors.As(err, &be) {
		return
	}
	for i, c := range be.Largest {
		if c.Tract == own {
			be.Largest[i] = compose.Contributor{Source: "the caller's", Name: "--summary", Tokens: c.Tokens}
		}
	}
}
