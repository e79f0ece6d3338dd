package cli

import (
	"errors"
	"fmt"
	"github.com/agentlineage/lineage/internal/fsx"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractBranchCmd(env *Env, f *tractFlags) *cobra.Command {
	var from, del string
	var force bool
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "branch [NAME [--from REF]] [--delete NAME [--force]]",
		Short: "List, create or delete branches",
		Args:  rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if del != "" && len(args) > 0 {
				return usageError("give a branch to create or --delete, not both")
			}
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			ctx := cmd.Context()
			switch {
			case del != "":
				if err := s.repo.DeleteBranch(ctx, s.tract, del, force); err != nil {
					return tractErr(err)
				}
				fmt.Fprintf(env.Stdout, "deleted branch %s\n", del)
			case len(args) == 1:
				b, err := s.repo.CreateBranch(ctx, s.tract, args[0], from)
				if err != nil {
					return tractErr(err)
				}
				fmt.Fprintf(env.Stdout, "created branch %s at %s\n", b.Name, b.Commit.Short())
			default:
				bs, err := s.repo.Branches(ctx, s.tract)
				if err != nil {
					return tractErr(err)
				}
				if asJSON.set {
					return writeJSON(env.Stdout, bs)
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
	asJSON.add(cmd, "")
	return cmd
}

func newTractSwitchCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "switch NAME|-",
		Short: "Attach HEAD to a branch ('-': the branch it was on before)",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			name, err := s.repo.SwitchTo(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			return printHead(cmd, env, s, asJSON.set, "switched to branch "+fsx.LineSafe(name))
		}),
	}
	asJSON.add(cmd, "print where HEAD is as JSON: {tract, branch, head}")
	return cmd
}

// printHead prints what a command that moved HEAD did: line, or with
// asJSON where HEAD is now.
func printHead(cmd *cobra.Command, env *Env, s *tractSession, asJSON bool, line string) error {
	if !asJSON {
		fmt.Fprintln(env.Stdout, line)
		return nil
	}
	t, h, err := s.repo.Head(cmd.Context(), s.tract)
	if err != nil {
		return tractErr(err)
	}
	return writeJSON(env.Stdout, struct {
		Tract  string     `json:"tract"`
		Branch string     `json:"branch,omitempty"`
		Head   tract.Hash `json:"head"`
	}{t.Name, h.Branch, h.Commit})
}

func newTractCheckoutCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "checkout REF|-",
		Short: "Detach HEAD at a commit ('-': back to where HEAD was before)",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			h, err := s.repo.Checkout(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			line := fmt.Sprintf("HEAD detached at %s", h.Short())
			if args[0] == tract.PreviousRef {
				if _, head, err := s.repo.Head(cmd.Context(), s.tract); err == nil && head.Branch != "" {
					line = "switched to branch " + fsx.LineSafe(head.Branch)
				}
			}
			return printHead(cmd, env, s, asJSON.set, line)
		}),
	}
	asJSON.add(cmd, "print where HEAD is as JSON: {tract, branch, head}")
	return cmd
}

func newTractResetCmd(env *Env, f *tractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "reset REF",
		Short: "Move the current branch to a commit (the old tip stays in the reflog)",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			h, err := s.repo.Reset(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			fmt.Fprintf(env.Stdout, "HEAD is now at %s\n", h.Short())
			return nil
		}),
	}
}

func newTractMergeCmd(env *Env, f *tractFlags) *cobra.Command {
	var o tract.MergeOptions
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "merge BRANCH [--no-ff] [--strategy ours|theirs] [--message M] [--delete-branch]",
		Short: "Merge a branch into the current one",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			res, err := s.repo.Merge(cmd.Context(), s.tract, args[0], o)
			var ce *tract.ConflictError
			if errors.As(err, &ce) {
				for _, c := range ce.Conflicts {
					fmt.Fprintf(env.Stdout, "conflict %s %s (ours: %s, theirs: %s)\n", c.Kind, c.Target, c.Ours, c.Theirs)
				}
			}
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, res)
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
	asJSON.add(cmd, "")
	return cmd
}

func tractPrintMerge(env *Env, res tract.MergeResult, what, strategy string) {
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

func newTractCherryPickCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "cherry-pick REF",
		Short: "Append a commit with the same content as REF on the current head",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			c, err := s.repo.CherryPick(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, c)
			}
			fmt.Fprintln(env.Stdout, c.Hash)
			return nil
		}),
	}
	asJSON.add(cmd, "print the new commit as JSON")
	return cmd
}
