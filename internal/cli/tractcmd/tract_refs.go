package tractcmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

func newTractBranchCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var from, del string
	var force bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "branch [NAME [--from REF]] [--delete NAME [--force]]",
		Short: "List, create or delete branches",
		Args:  clienv.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if del != "" && len(args) > 0 {
				return clienv.UsageError("give a branch to create or --delete, not both")
			}
			s, err := f.Session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			ctx := cmd.Context()
			switch {
			case del != "":
				if err := s.Repo.DeleteBranch(ctx, s.Tract, del, force); err != nil {
					return clienv.TractErr(err)
				}
				fmt.Fprintf(env.Stdout, "deleted branch %s\n", del)
			case len(args) == 1:
				b, err := s.Repo.CreateBranch(ctx, s.Tract, args[0], from)
				if err != nil {
					return clienv.TractErr(err)
				}
				fmt.Fprintf(env.Stdout, "created branch %s at %s\n", b.Name, b.Commit.Short())
			default:
				bs, err := s.Repo.Branches(ctx, s.Tract)
				if err != nil {
					return clienv.TractErr(err)
				}
				if asJSON.Set {
					return clienv.WriteJSON(env.Stdout, bs)
				}
				for _, b := range bs {
					mark, at := " ", "(no commits)"
					if b.Current {
						mark = "*"
					}
					if b.Commit != "" {
						at = b.Commit.Short()
					}
					fmt.Fprintf(env.Stdout, "%s %s %s\n", mark, b.Name, at)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "start the branch at this ref (default HEAD)")
	cmd.Flags().StringVar(&del, "delete", "", "delete this branch")
	cmd.Flags().BoolVar(&force, "force", false, "delete even when not merged into HEAD")
	asJSON.Add(cmd, "")
	return cmd
}

func newTractSwitchCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "switch NAME|-",
		Short: "Attach HEAD to a branch ('-': the branch it was on before)",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			name, err := s.Repo.SwitchTo(cmd.Context(), s.Tract, args[0])
			if err != nil {
				return clienv.TractErr(err)
			}
			return printHead(cmd, env, s, asJSON.Set, "switched to branch "+fsx.LineSafe(name))
		}),
	}
	asJSON.Add(cmd, "print where HEAD is as JSON: {tract, branch, head}")
	return cmd
}

// printHead prints what a command that moved HEAD did: line, or with
// asJSON where HEAD is now.
func printHead(cmd *cobra.Command, env *clienv.Env, s *clienv.TractSession, asJSON bool, line string) error {
	if !asJSON {
		fmt.Fprintln(env.Stdout, line)
		return nil
	}
	t, h, err := s.Repo.Head(cmd.Context(), s.Tract)
	if err != nil {
		return clienv.TractErr(err)
	}
	return clienv.WriteJSON(env.Stdout, struct {
		Tract  string     `json:"tract"`
		Branch string     `json:"branch,omitempty"`
		Head   tract.Hash `json:"head"`
	}{t.Name, h.Branch, h.Commit})
}

func newTractCheckoutCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "checkout REF|-",
		Short: "Detach HEAD at a commit ('-': back to where HEAD was before)",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			h, err := s.Repo.Checkout(cmd.Context(), s.Tract, args[0])
			if err != nil {
				return clienv.TractErr(err)
			}
			line := fmt.Sprintf("HEAD detached at %s", h.Short())
			if args[0] == tract.PreviousRef {
				if _, head, err := s.Repo.Head(cmd.Context(), s.Tract); err == nil && head.Branch != "" {
					line = "switched to branch " + fsx.LineSafe(head.Branch)
				}
			}
			return printHead(cmd, env, s, asJSON.Set, line)
		}),
	}
	asJSON.Add(cmd, "print where HEAD is as JSON: {tract, branch, head}")
	return cmd
}

func newTractResetCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "reset REF",
		Short: "Move the current branch to a commit (the old tip stays in the reflog)",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			h, err := s.Repo.Reset(cmd.Context(), s.Tract, args[0])
			if err != nil {
				return clienv.TractErr(err)
			}
			fmt.Fprintf(env.Stdout, "HEAD is now at %s\n", h.Short())
			return nil
		}),
	}
}

func newTractMergeCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var o tract.MergeOptions
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "merge BRANCH [--no-ff] [--strategy ours|theirs] [--message M] [--delete-branch]",
		Short: "Merge a branch into the current one",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			res, err := s.Repo.Merge(cmd.Context(), s.Tract, args[0], o)
			var ce *tract.ConflictError
			if errors.As(err, &ce) {
				for _, c := range ce.Conflicts {
					fmt.Fprintf(env.Stdout, "conflict %s %s (ours: %s, theirs: %s)\n", c.Kind, c.Target, c.Ours, c.Theirs)
				}
			}
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			tractPrintMerge(env, res, args[0], o.Strategy)
			if res.Deleted != "" {
				fmt.Fprintf(env.Stdout, "deleted branch %s\n", fsx.LineSafe(res.Deleted))
			}
			return nil
		}, &o),
	}
	cmd.Flags().BoolVar(&o.NoFF, "no-ff", false, "record a merge commit even when a fast-forward is possible")
	cmd.Flags().StringVar(&o.Strategy, "strategy", "", "resolve conflicts: ours or theirs (recorded as an edit on top of the merge)")
	cmd.Flags().StringVarP(&o.Message, "message", "m", "", "the merge commit's message (default: merge BRANCH)")
	cmd.Flags().BoolVarP(&o.DeleteBranch, "delete-branch", "d", false, "delete the merged branch afterwards")
	asJSON.Add(cmd, "")
	return cmd
}

func tractPrintMerge(env *clienv.Env, res tract.MergeResult, what, strategy string) {
	switch res.Kind {
	case tract.MergeUpToDate:
		fmt.Fprintln(env.Stdout, "already up to date")
	case tract.MergeFastForward:
		fmt.Fprintf(env.Stdout, "fast-forward to %s\n", res.Head.Short())
	default:
		fmt.Fprintf(env.Stdout, "merged %s: %s\n", what, res.Merge.Short())
		for _, c := range res.Resolved {
			fmt.Fprintf(env.Stdout, "resolved %s %s with %s\n", c.Kind, c.Target.Short(), strategy)
		}
	}
}

func newTractCherryPickCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "cherry-pick REF",
		Short: "Append a commit with the same content as REF on the current head",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			c, err := s.Repo.CherryPick(cmd.Context(), s.Tract, args[0])
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, c)
			}
			fmt.Fprintln(env.Stdout, c.Hash)
			return nil
		}),
	}
	asJSON.Add(cmd, "print the new commit as JSON")
	return cmd
}

func newTractTagCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var del bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "tag NAME [REF] | tag --delete NAME",
		Short: "Name a commit with a tag (a fixed ref), or delete a tag",
		Long: `tag NAME [REF] points tag NAME at REF (default HEAD). A tag never moves:
tagging a name twice fails; delete it first. Tags resolve wherever a ref is
taken (show v1, compile --at v1, log labels them); a branch of the same name
wins. Tags keep their commits alive through gc.`,
		Args: clienv.RangeArgs(1, 2),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			ctx := cmd.Context()
			if del {
				if len(args) != 1 {
					return clienv.UsageError("--delete takes one tag name")
				}
				t, err := s.Repo.DeleteTag(ctx, s.Tract, args[0])
				if err != nil {
					return clienv.TractErr(err)
				}
				if asJSON.Set {
					return clienv.WriteJSON(env.Stdout, t)
				}
				fmt.Fprintf(env.Stdout, "deleted tag %s (was %s)\n", t.Name, t.Commit.Short())
				return nil
			}
			ref := ""
			if len(args) == 2 {
				ref = args[1]
			}
			t, err := s.Repo.CreateTag(ctx, s.Tract, args[0], ref)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, t)
			}
			fmt.Fprintf(env.Stdout, "tagged %s as %s\n", t.Commit.Short(), t.Name)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&del, "delete", false, "delete tag NAME")
	asJSON.Add(cmd, "")
	return cmd
}

func newTractTagsCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "tags",
		Short: "List the tract's tags",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			tags, err := s.Repo.Tags(cmd.Context(), s.Tract)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, tags)
			}
			printTags(env, tags)
			return nil
		}),
	}
	asJSON.Add(cmd, "")
	return cmd
}

func printTags(env *clienv.Env, tags []tract.Tag) {
	for _, t := range tags {
		fmt.Fprintf(env.Stdout, "%s %s\n", t.Name, t.Commit.Short())
	}
}
