package cli

import (
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractTagCmd(env *Env, f *tractFlags) *cobra.Command {
	var del bool
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "tag NAME [REF] | tag --delete NAME",
		Short: "Name a commit with a tag (a fixed ref), or delete a tag",
		Long: `tag NAME [REF] points tag NAME at REF (default HEAD). A tag never moves:
tagging a name twice fails; delete it first. Tags resolve wherever a ref is
taken (show v1, compile --at v1, log labels them); a branch of the same name
wins. Tags keep their commits alive through gc.`,
		Args: rangeArgs(1, 2),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			ctx := cmd.Context()
			if del {
				if len(args) != 1 {
					return usageError("--delete takes one tag name")
				}
				t, err := s.repo.DeleteTag(ctx, s.tract, args[0])
				if err != nil {
					return tractErr(err)
				}
				if asJSON.set {
					return writeJSON(env.Stdout, t)
				}
				fmt.Fprintf(env.Stdout, "deleted tag %s (was %s)\n", t.Name, t.Commit.Short())
				return nil
			}
			ref := ""
			if len(args) == 2 {
				ref = args[1]
			}
			t, err := s.repo.CreateTag(ctx, s.tract, args[0], ref)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, t)
			}
			fmt.Fprintf(env.Stdout, "tagged %s as %s\n", t.Commit.Short(), t.Name)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&del, "delete", false, "delete tag NAME")
	asJSON.add(cmd, "")
	return cmd
}

func newTractTagsCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "tags",
		Short: "List the tract's tags",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			tags, err := s.repo.Tags(cmd.Context(), s.tract)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, tags)
			}
			printTags(env, tags)
			return nil
		}),
	}
	asJSON.add(cmd, "")
	return cmd
}

func printTags(env *Env, tags []tract.Tag) {
	for _, t := range tags {
		fmt.Fprintf(env.Stdout, "%s %s\n", t.Name, t.Commit.Short())
	}
}
