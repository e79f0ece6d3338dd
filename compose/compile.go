package compose

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
)

// BudgetError is a budget the pinned part alone exceeds.
type BudgetError struct {
	Budget int
	// Needed is what the pinned part and the request's overhead use.
	Needed int
	// Largest are the pinned part's largest contributors, at most three,
	// largest first.
	Largest []Contributor
}

// Contributor is a piece of the pinned part: an instruction file, a
// profile field or a pinned tract message.
type Contributor struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	// Tract and Commit name a pinned tract message ("" otherwise): what a
	// caller that removes a tract it made renames (package handoff).
	Tract  string     `json:"-"`
	Commit tract.Hash `json:"-"`
}

func (e *BudgetError) Error() string {
	if len(e.Largest) == 0 {
		// Nothing pinned: a budget below the request's own tokens.
		return fmt.Sprintf("budget of %d tokens is too small: the request's own overhead (the reply primer) needs %d tokens", e.Budget, e.Needed)
	}
	var parts []string
	for _, c := range e.Largest {
		parts = append(parts, fmt.Sprintf("%s %s (%d tokens)", c.Source, fsx.LineSafe(c.Name), c.Tokens))
	}
	return fmt.Sprintf("budget of %d tokens is too small: the pinned part needs %d tokens; largest: %s",
		e.Budget, e.Needed, strings.Join(parts, ", "))
}

// Compile composes the context o selects (see the package comment).
func Compile(ctx context.Context, o Options) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	dir, err := targetDir(o)
	if err != nil {
		return Result{}, err
	}
	counter, err := counterFor(o)
	if err != nil {
		return Result{}, err
	}
	res := Result{Totals: Totals{Dir: dir, Slug: o.Slug, Tract: o.Tract, Encoding: counter.Encoding(), Format: o.format()},
		Dropped: []Dropped{}, DroppedMessages: []tract.Dropped{}, Warnings: []string{}}
	if o.Budget > 0 {
		b := o.Budget
		res.Budget = &b
	}

	var sys []piece
	in := o.Sources.instructionsOf(o, dir, counter)
	res.Warnings = append(res.Warnings, in.warnings...)
	res.Dropped = append(res.Dropped, in.dropped...)
	if in.block != nil {
		sys = append(sys, *in.block)
	}
	if sp := o.Sources.skillsOf(o, dir, counter); sp.block != nil || len(sp.warnings) > 0 {
		res.Warnings = append(res.Warnings, sp.warnings...)
		res.Dropped = append(res.Dropped, sp.dropped...)
		if sp.block != nil {
			sys = append(sys, *sp.block)
		}
	}
	if o.Slug != "" {
		pb, warnings, err := o.Sources.profileOf(o, dir, counter)
		if err != nil {
			return Result{}, err
		}
		res.Warnings = append(res.Warnings, warnings...)
		if pb != nil {
			sys = append(sys, *pb)
		}
	}
	sysTokens := 0
	for _, p := range sys {
		sysTokens += p.block.Tokens
	}

	var hist *tract.Result
	if o.Tract != "" {
		h, err := compileTract(ctx, o, sys, sysTokens)
		if err != nil {
			return Result{}, err
		}
		hist = &h
		res.Tract, res.Head, res.Overhead = h.Tract, h.Head, h.Tokens
		for _, m := range h.Messages {
			res.Overhead -= m.Tokens
		}
	} else {
		res.Overhead = tract.PrimerTokens
		if o.Budget > 0 && sysTokens+res.Overhead > o.Budget {
			return Result{}, budgetError(o.Budget, sys, nil, res.Overhead)
		}
	}

	if err := assemble(ctx, o, &res, sys, hist); err != nil {
		return Result{}, err
	}
	req, err := render(&res, o)
	if err != nil {
		return Result{}, err
	}
	res.Request = req
	return res, nil
}

// targetDir is the directory whose chain is loaded: the target's, or the
// target itself when it is a directory. A file that does not exist yet
// (one about to be written) has its folder's chain, as `instructions
// explain` has it; a target whose folder does not exist either is an
// error naming that folder.
func targetDir(o Options) (string, error) {
	cwd := filepath.Clean(o.Instructions.Cwd)
	if o.Target == "" {
		return cwd, nil
	}
	p := fsx.Abs(cwd, o.Target)
	fsys := o.Instructions.FS
	if fsys == nil {
		fsys = instructions.OS
	}
	fi, err := fsys.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		dir := filepath.Dir(p)
		if di, derr := fsys.Stat(dir); derr == nil && di.IsDir() {
			return dir, nil
		}
		return "", fmt.Errorf("target %s: no such file, and its folder %s does not exist either", fsx.LineSafe(o.Target), fsx.LineSafe(filepath.Dir(o.Target)))
	case err != nil:
		return "", fmt.Errorf("target %s: %w", fsx.LineSafe(o.Target), err)
	case fi.IsDir():
		return p, nil
	}
	return filepath.Dir(p), nil
}

func counterFor(o Options) (tokens.Counter, error) {
	if o.Repo != nil {
		return o.Repo.Counter(o.Encoding)
	}
	return tokens.Get(o.Encoding)
}

// piece is a block of the system part with its text and, for the budget
// error, the contributors it is made of.
type piece struct {
	text         string
	block        Block
	contributors []Contributor
}

// compileTract compiles the history under what the system part leaves,
// turning a pinned overflow into a *BudgetError over the whole pinned part:
// the system part and what the tract's budget cannot drop (its pinned
// units, tool calls kept with a pinned result included).
func compileTract(ctx context.Context, o Options, sys []piece, sysTokens int) (tract.Result, error) {
	co := tract.CompileOptions{At: o.At, Encoding: o.Encoding, Scratch: o.Scratch.historyScratch(), Prune: o.Prune}
	if o.Budget > 0 {
		co.Budget = max(o.Budget-sysTokens, 1)
	}
	h, err := compileWith(ctx, o, co)
	var be *tract.BudgetError
	if !errors.As(err, &be) {
		return h, err
	}
	overhead := be.Needed
	for _, m := range be.Kept {
		overhead -= m.Tokens
	}
	return tract.Result{}, budgetError(o.Budget, sys, be.Kept, overhead)
}

func compileWith(ctx context.Context, o Options, co tract.CompileOptions) (tract.Result, error) {
	if o.Cold {
		return o.Repo.CompileCold(ctx, o.Tract, co)
	}
	return o.Repo.Compile(ctx, o.Tract, co)
}

func budgetError(budget int, sys []piece, pinned []tract.Message, overhead int) *BudgetError {
	e := &BudgetError{Budget: budget, Needed: overhead}
	var all []Contributor
	for _, p := range sys {
		e.Needed += p.block.Tokens
		all = append(all, p.contributors...)
	}
	for _, m := range pinned {
		e.Needed += m.Tokens
		all = append(all, Contributor{Source: "commit", Name: m.Commit.Short() + " (tract " + m.Tract + ")", Tokens: m.Tokens,
			Tract: m.Tract, Commit: m.Commit})
	}
	// Stable: equal sizes keep the request's order.
	slices.SortStableFunc(all, func(a, b Contributor) int { return cmp.Compare(b.Tokens, a.Tokens) })
	e.Largest = all[:min(3, len(all))]
	return e
}

// assemble lays out the messages and blocks: the system part (instruction
// block, profile block, the tract's pinned system messages), then the rest
// of the history, and the tract's dropped messages.
func assemble(ctx context.Context, o Options, res *Result, sys []piece, hist *tract.Result) error {
	n := len(sys)
	if hist != nil {
		n += len(hist.Messages)
	}
	res.Messages, res.Blocks = o.Scratch.take(n)
	for _, p := range sys {
		res.Messages = append(res.Messages, tract.Message{Role: tract.RoleSystem, Content: p.text, Type: tract.TypeInstruction,
			Priority: tract.Pinned, Tokens: p.block.Tokens})
		res.Blocks = append(res.Blocks, p.block)
	}
	if hist != nil {
		paths := map[string][]string{}
		if hist.TractID != "" && hist.SpawnParent == "" {
			// The compiled tract is a root: its spawn path is its name.
			paths[hist.TractID] = []string{hist.Tract}
		}
		// Consecutive messages are mostly of one tract: its path is
		// looked up once for them.
		var lastID string
		var lastPath []string
		block := func(m *tract.Message, part string) (Block, error) {
			path := lastPath
			if m.TractID != lastID || path == nil {
				var ok bool
				if path, ok = paths[m.TractID]; !ok {
					var err error
					if path, err = o.Repo.SpawnPath(ctx, m.TractID); err != nil {
						return Block{}, err
					}
					paths[m.TractID] = path
				}
				lastID, lastPath = m.TractID, path
			}
			return Block{Part: part, Source: SourceTract, Role: m.Role, Tokens: m.Tokens, Overhead: m.Tokens,
				Commit: m.Commit, Tract: m.Tract, SpawnPath: path, Type: m.Type, Priority: m.Priority, Summarizes: m.Summarizes}, nil
		}
		// The pinned system messages join the system part, in order; the
		// rest follow in order.
		for _, system := range []bool{true, false} {
			part := PartMessages
			if system {
				part = PartSystem
			}
			for i := range hist.Messages {
				m := &hist.Messages[i]
				if systemPinned(m) != system {
					continue
				}
				b, err := block(m, part)
				if err != nil {
					return err
				}
				res.Messages = append(res.Messages, *m)
				res.Blocks = append(res.Blocks, b)
			}
		}
		res.Tools = hist.Tools
		if hist.Dropped != nil {
			res.DroppedMessages = hist.Dropped
		}
		res.Pruned = hist.Pruned
		res.DroppedMessageCount, res.DroppedMessageTokens = len(hist.Dropped), hist.DroppedTokens
	}
	o.Scratch.keep(res.Messages, res.Blocks)
	res.Tokens = res.Overhead
	for i := range res.Blocks {
		res.Blocks[i].Index = i
		res.Tokens += res.Blocks[i].Tokens
		if res.Blocks[i].Part == PartSystem {
			res.SystemTokens += res.Blocks[i].Tokens
		}
	}
	return nil
}

// systemPinned reports whether a tract message belongs to the system part:
// a pinned system message (an instruction, by default).
func systemPinned(m *tract.Message) bool {
	return m.Role == tract.RoleSystem && m.Priority == tract.Pinned
}
