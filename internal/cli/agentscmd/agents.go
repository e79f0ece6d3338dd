package agentscmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

const Short = "CLIA agent triads: contexts, merged profiles, journal"

func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("agents", Short,
		`CLIA agent triads (agent, agenda, agency documents under .clia/agents/<slug>/)
seen from a working path: which contexts apply, the deterministic merge of
their documents, and append-only journal writes.`)
	cmd.Example = `  lineage agents list
  lineage agents profile coder                 # the merged agent document (same as --slug coder)
  lineage agents profile --slug coder --explain
  lineage agents context --slug coder           # the context chain, global to local
  lineage agents doctor --slug coder`
	f := &clienv.AgentsFlags{}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.Path, "path", "", "working path P (default: the current directory)")
	pf.StringArrayVar(&f.Roots, "agents-root", nil, "agents root searched in every domain root after .clia/agents (repeatable)")
	pf.BoolVar(&f.Strict, "strict", false, "treat findings as fatal (exit 3)")
	pf.BoolVar(&f.AllowOutside, "allow-outside-inherits", false, "follow inherits that leave the workspace")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := agents.ValidateRoots(f.Roots); err != nil {
			return clienv.UsageError("--agents-root: %v", err)
		}
		if f.Path != "" {
			if _, err := clienv.ExistingDir(env, "path", f.Path, false); err != nil {
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

// printFindings writes the findings of a read to stderr as warnings: a
// skipped document (invalid JSON) does not stop the others from merging.
// With strict, those errors make the command fail with exit 3.
func printFindings(env *clienv.Env, rep agents.Report, strict bool) error {
	for _, e := range rep.Errors {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(e))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(w))
	}
	if strict && len(rep.Errors) > 0 {
		return clienv.FindingError(fmt.Errorf("%d error(s) with --strict", len(rep.Errors)))
	}
	return nil
}
