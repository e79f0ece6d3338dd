package cli

import "github.com/spf13/cobra"

func newTractCmd(env *Env) *cobra.Command {
	_ = env
	return groupCmd("tract", "Version-controlled LLM context: commits, branches, compile", "")
}
