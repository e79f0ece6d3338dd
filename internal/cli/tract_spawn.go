package cli

import (
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractSpawnCmd(env *Env, f *tractFlags) *cobra.Command {
	var o tract.SpawnOptions
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "spawn CHILD --purpose P [--mode reference|snapshot|empty] [--budget N]",
		Short: "Create a child tract from the current tract's head",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			child, err := s.repo.Spawn(cmd.Context(), s.tract, args[0], o)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, child)
			}
			at := "an empty tract"
			if child.Spawn.Commit != "" {
				at = child.Spawn.Commit.Short()
			}
			fmt.Fprintf(env.Stdout, "spawned %s from %s at %s (%s)\n", child.Name, s.tract, at, child.Spawn.Mode)
			return nil
		}, &o),
	}
	cmd.Flags().StringVar(&o.Purpose, "purpose", "", "what the child is for (required)")
	cmd.Flags().StringVar((*string)(&o.Mode), "mode", string(tract.SpawnReference), "reference (see the parent's context by reference), snapshot (a seed with the compiled parent context) or empty (a seed with the purpose)")
	budgetFlag(cmd, &o.Budget, "token budget of a snapshot")
	asJSON.add(cmd, "print the child tract as JSON")
	return cmd
}

func newTractMergeFromCmd(env *Env, f *tractFlags) *cobra.Command {
	var into string
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "merge-from CHILD [--into PARENT]",
		Short: "Merge a child's work into its parent by reference (a merge commit, nothing copied)",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			res, err := s.repo.MergeFrom(cmd.Context(), args[0], into)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, res)
			}
			if res.Kind == tract.MergeUpToDate {
				fmt.Fprintf(env.Stdout, "%s is up to date with %s\n", res.Parent, res.Child)
				return nil
			}
			fmt.Fprintf(env.Stdout, "merged %s into %s: %s\n", res.Child, res.Parent, res.Merge.Short())
			return nil
		}),
	}
	cmd.Flags().StringVar(&into, "into", "", "parent tract (default: the child's spawn parent)")
	asJSON.add(cmd, "")
	return cmd
}
