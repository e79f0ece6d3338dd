package instructionscmd

import (
	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
)

const Short = "Hierarchical AGENTS.md loading and resolving"

func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("instructions", Short,
		`Load the AGENTS.md files from the project root down to the working directory
once, then resolve only the further ones that apply when work moves elsewhere.

Configuration, highest first: flags, CODELIA_AGENTS_* environment variables
(only when set and not empty), the --config JSON file, defaults.`)
	cmd.Example = `  lineage instructions initial                             # the AGENTS.md chain of this directory
  lineage instructions initial --state .lineage/s.json     # ... and start a session state
  lineage instructions resolve src/api/handler.go --state .lineage/s.json
  lineage instructions explain src/api/handler.go          # why each directory counts, or not
  lineage instructions initial --file-names CLAUDE.md,AGENTS.md`
	f := &clienv.InstructionsFlags{}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.Cwd, "cwd", "", "working directory (default: the process directory)")
	f.AddSettingsFlags(pf)
	cmd.AddCommand(
		newInstructionsInitialCmd(env, f),
		newInstructionsResolveCmd(env, f),
		newInstructionsExplainCmd(env, f),
		newInstructionsResumeCmd(env, f),
	)
	return cmd
}
