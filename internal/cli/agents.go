package cli

import "github.com/spf13/cobra"

func newAgentsCmd(env *Env) *cobra.Command {
	_ = env
	return groupCmd("agents", "CLIA agent triads: contexts, merged profiles, journal", "")
}
