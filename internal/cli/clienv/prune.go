package clienv

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/tract"
)

// PruneFlags are --prune and --drop-failed-turns: the compile-time prune
// policy of `tract compile`, `lineage context` and `lineage handoff`.
type PruneFlags struct {
	Policy     string
	DropFailed bool
}

// Add registers the flags on cmd.
func (f *PruneFlags) Add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.Policy, "prune", "", "prune `policy` applied at compile time, the store untouched: 'tool-results [older-than=N] [keep-last=K] [larger-than=T] [failed-turns]', or none (default: the tract's 'tract config prune')")
	fl.BoolVar(&f.DropFailed, "drop-failed-turns", false, "leave out failed tool steps: the failed result, its call when every call of that message failed, the reasoning right before it")
}

// Check validates --prune before any store is opened.
func (f *PruneFlags) Check() error {
	if _, err := tract.ParsePrunePolicy(f.Policy); err != nil {
		return UsageError("--prune: %v", err)
	}
	return nil
}

// Resolve is the policy a compile of tractName applies: --prune when given
// ("none" for none), else the tract's stored one, with failed-turns added
// by --drop-failed-turns; nil when it prunes nothing.
func (f *PruneFlags) Resolve(ctx context.Context, repo *tract.Repo, tractName string) (*tract.PrunePolicy, error) {
	p, err := tract.ParsePrunePolicy(f.Policy)
	if err != nil {
		return nil, UsageError("--prune: %v", err)
	}
	if f.Policy == "" {
		cfg, err := repo.Config(ctx, tractName)
		if err != nil {
			return nil, TractErr(err)
		}
		p = cfg.PrunePolicy()
	}
	p.FailedTurns = p.FailedTurns || f.DropFailed
	if !p.Active() {
		return nil, nil
	}
	return &p, nil
}

// PrunedNote says on stderr what a prune policy left out, by rule:
// "prune: left out 3 message(s) (412 tokens): failed-turns 1, tool-results 2".
func PrunedNote(env *Env, pruned []tract.Pruned) {
	if len(pruned) == 0 {
		return
	}
	tokens := 0
	byRule := map[string]int{}
	for _, p := range pruned {
		tokens += p.Tokens
		byRule[p.Rule]++
	}
	var parts []string
	for _, r := range []string{tract.FailedTurnsRule, tract.ToolResultsRule} {
		if byRule[r] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, byRule[r]))
		}
	}
	fmt.Fprintf(env.Stderr, "prune: left out %d message(s) (%d tokens): %s\n", len(pruned), tokens, strings.Join(parts, ", "))
}
