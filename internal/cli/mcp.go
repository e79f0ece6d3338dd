package cli

import "github.com/spf13/cobra"

func newMCPCmd(env *Env) *cobra.Command {
	_ = env
	return groupCmd("mcp", "Serve lineage to agents over the Model Context Protocol", "")
}
