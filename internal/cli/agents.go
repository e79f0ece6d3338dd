package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
)

// agentsFlags are the flags every agents command shares.
type agentsFlags struct {
	path         string
	roots        []string
	strict       bool
	allowOutside bool
}

const agentsShort = "CLIA agent triads: contexts, merged profiles, journal"

func (f *agentsFlags) options(env *Env) agents.Options {
	p := env.Dir
	if f.path != "" {
		p = fsx.Abs(env.Dir, f.path)
	}
	return agents.Options{Path: p, AgentsRoots: f.roots, AllowOutsideInherits: f.allowOutside}
}

func newAgentsCmd(env *Env) *cobra.Command {
	cmd := groupCmd("agents", agentsShort,
		`CLIA agent triads (agent, agenda, agency documents under .clia/agents/<slug>/)
seen from a working path: which contexts apply, the deterministic merge of
their documents, and append-only journal writes.`)
	f := &agentsFlags{}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.path, "path", "", "working path P (default: the current directory)")
	pf.StringArrayVar(&f.roots, "agents-root", nil, "agents root searched in every domain root after .clia/agents (repeatable)")
	pf.BoolVar(&f.strict, "strict", false, "treat findings as fatal (exit 3)")
	pf.BoolVar(&f.allowOutside, "allow-outside-inherits", false, "follow inherits that leave the workspace")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := agents.ValidateRoots(f.roots); err != nil {
			return usageError("--agents-root: %v", err)
		}
		if f.path != "" {
			if _, err := existingDir(env, "path", f.path, false); err != nil {
				return err
			}
		}
		return nil
	}
	cmd.AddCommand(
		newAgentsListCmd(env, f),
		newAgentsContextCmd(env, f),
		newAgentsProfileCmd(env, f, "profile"),
		newAgentsProfileCmd(env, f, "plan"),
		newAgentsDoctorCmd(env, f),
		newAgentsLintCmd(env, f),
		newAgentsAgendaCmd(env, f),
	)
	addAgentsWriteCmds(cmd, env, f)
	addAgentSlugAlias(cmd)
	return cmd
}

// addAgentSlugAlias accepts CLIA's spelling --agent-slug wherever a
// command under cmd has --slug: both names set the same value.
func addAgentSlugAlias(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if sf := c.Flags().Lookup("slug"); sf != nil && c.Flags().Lookup("agent-slug") == nil {
			c.Flags().Var(sf.Value, "agent-slug", "same as --slug (CLIA's spelling)")
		}
		addAgentSlugAlias(c)
	}
}

// agentsError maps library errors to exit codes: rootChain validation and
// containment → 3, the rest → 1.
func agentsError(err error) error {
	if err == nil {
		return nil
	}
	if agents.IsValidation(err) {
		return findingError(err)
	}
	return err
}

func requireSlug(slug string) error {
	if slug == "" {
		return usageError("--slug is required")
	}
	if err := agents.ValidateSlug(slug); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// printFindings writes the findings of a read to stderr as warnings: a
// skipped document (invalid JSON) does not stop the others from merging.
// With strict, those errors make the command fail with exit 3.
func printFindings(env *Env, rep agents.Report, strict bool) error {
	for _, e := range rep.Errors {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(e))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(w))
	}
	if strict && len(rep.Errors) > 0 {
		return findingError(fmt.Errorf("%d error(s) with --strict", len(rep.Errors)))
	}
	return nil
}
