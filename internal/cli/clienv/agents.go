package clienv

import (
	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
)

// AgentsFlags are the flags every agents command shares.
type AgentsFlags struct {
	Path         string
	Roots        []string
	Strict       bool
	AllowOutside bool
}

func (f *AgentsFlags) Options(env *Env) agents.Options {
	p := env.Dir
	if f.Path != "" {
		p = fsx.Abs(env.Dir, f.Path)
	}
	return agents.Options{Path: p, AgentsRoots: f.Roots, AllowOutsideInherits: f.AllowOutside}
}

// AgentsError maps library errors to exit codes: rootChain validation and
// containment → 3, the rest → 1.
func AgentsError(err error) error {
	if err == nil {
		return nil
	}
	if agents.IsValidation(err) {
		return FindingError(err)
	}
	return err
}

func RequireSlug(slug string) error {
	if slug == "" {
		return UsageError("--slug is required")
	}
	if err := agents.ValidateSlug(slug); err != nil {
		return UsageError("%v", err)
	}
	return nil
}
