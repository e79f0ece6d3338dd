package cli

import "github.com/spf13/cobra"

func newInstructionsCmd(env *Env) *cobra.Command {
	_ = env
	return groupCmd("instructions", "Hierarchical AGENTS.md loading and resolving", "")
}
