package cli

import (
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractBranchCmd(env *Env, f *tractFlags) *cobra.Command {
	var from, del string
	var force, asJSON bool
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
				if asJSON {
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTractSwitchCmd(env *Env, f *tractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "switch NAME",
		Short: "Attach HEAD to a branch",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			if err := s.repo.Switch(cmd.Context(), s.tract, args[0]); err != nil {
				return tractErr(err)
			}
			fmt.Fprintf(env.Stdout, "switched to branch %s\n", args[0])
			return nil
		}),
	}
}

func newTractCheckoutCmd(env *Env, f *tractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "checkout REF",
		Short: "Detach HEAD at a commit",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			h, err := s.repo.Checkout(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			fmt.Fprintf(env.Stdout, "HEAD detached at %s\n", h.Short())
			return nil
		}),
	}
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
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge BRANCH [--no-ff] [--strategy ours|theirs]",
		Short: "Merge a branch into the current one",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Strategy != "" && o.Strategy != tract.StrategyOurs && o.Strategy != tract.StrategyTheirs {
				return usageError("unknown --strategy %q (want ours or theirs)", o.Strategy)
			}
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
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
			if asJSON {
				return writeJSON(env.Stdout, res)
			}
			tractPrintMerge(env, res, args[0], o.Strategy)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.NoFF, "no-ff", false, "record a merge commit even when a fast-forward is possible")
	cmd.Flags().StringVar(&o.Strategy, "strategy", "", "resolve conflicts: ours or theirs (recorded as an edit on top of the merge)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
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
	return &cobra.Command{
		Use:   "cherry-pick REF",
		Short: "Append a commit with the same content as REF on the current head",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			c, err := s.repo.CherryPick(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			fmt.Fprintln(env.Stdout, c.Hash)
			return nil
		}),
	}
}

func newTractVerifyCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute every hash and check every parent, edit target and ref (exit 3 on damage)",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			rep, err := s.repo.Verify(cmd.Context())
			if err != nil {
				return tractErr(err)
			}
			if asJSON {
				if err := writeJSON(env.Stdout, rep); err != nil {
					return err
				}
			} else {
				for _, d := range rep.Damage {
					fmt.Fprintln(env.Stdout, d.String())
				}
			}
			if len(rep.Damage) > 0 {
				return findingError(fmt.Errorf("verify: %d problems in %s", len(rep.Damage), s.where))
			}
			if !asJSON {
				fmt.Fprintf(env.Stdout, "ok: %d blobs, %d commits, %d refs\n", rep.Blobs, rep.Commits, rep.Refs)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
