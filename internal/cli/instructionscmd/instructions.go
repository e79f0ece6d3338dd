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
	pf.StringVar(&f.Config, "config", "", "JSON configuration `file`")
	pf.StringVar(&f.Root, "root", "", "project root override (markers are not consulted)")
	pf.StringVar(&f.Markers, "markers", "", "comma-separated root `markers` (default .codelia,.git,.jj)")
	pf.IntVar(&f.MaxFiles, "max-files", 0, "most files in the initial chain (default 16)")
	pf.IntVar(&f.MaxBytes, "max-bytes", 0, "most content bytes in the initial chain (default 262144)")
	pf.IntVar(&f.MaxPerResolve, "max-per-resolve", 0, "most files one resolve returns (default 8)")
	pf.IntVar(&f.BudgetTokens, "budget-tokens", 0, "warn when the initial instructions exceed `N` tokens")
	pf.StringVar(&f.FileNames, "file-names", "", "comma-separated `names` tried in each directory (default AGENTS.md)")
	pf.BoolVar(&f.Disable, "disable", false, "load nothing and resolve nothing")
	pf.BoolVar(&f.NoResolver, "no-resolver", false, "load the initial chain but resolve nothing")
	pf.BoolVar(&f.NoImports, "no-imports", false, "do not follow @path imports")
	pf.BoolVar(&f.NoRules, "no-rules", false, "do not read rule folders (.agents/rules, .claude/rules)")
	pf.StringArrayVar(&f.Globals, "global", nil, "load `FILE` before the project chain, under its own cap (repeatable)")
	pf.StringArrayVar(&f.Excludes, "exclude", nil, "skip files matching `GLOB` (absolute, ~/ or root-relative; repeatable)")
	cmd.AddCommand(
		newInstructionsInitialCmd(env, f),
		newInstructionsResolveCmd(env, f),
		newInstructionsExplainCmd(env, f),
		newInstructionsResumeCmd(env, f),
	)
	return cmd
}
