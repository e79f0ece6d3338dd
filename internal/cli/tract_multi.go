package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractSpawnCmd(env *Env, f *tractFlags) *cobra.Command {
	var o tract.SpawnOptions
	var mode string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "spawn CHILD --purpose P [--mode reference|snapshot|empty] [--budget N]",
		Short: "Create a child tract from the current tract's head",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Budget < 0 {
				return usageError("--budget must be positive")
			}
			o.Mode = tract.SpawnMode(mode)
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			child, err := s.repo.Spawn(cmd.Context(), s.tract, args[0], o)
			if err != nil {
				return tractErr(err)
			}
			if asJSON {
				return writeJSON(env.Stdout, child)
			}
			at := "an empty tract"
			if child.Spawn.Commit != "" {
				at = child.Spawn.Commit.Short()
			}
			fmt.Fprintf(env.Stdout, "spawned %s from %s at %s (%s)\n", child.Name, s.tract, at, child.Spawn.Mode)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Purpose, "purpose", "", "what the child is for (required)")
	cmd.Flags().StringVar(&mode, "mode", string(tract.SpawnReference), "reference (see the parent's context by reference), snapshot (a seed with the compiled parent context) or empty (a seed with the purpose)")
	cmd.Flags().IntVar(&o.Budget, "budget", 0, "token budget of a snapshot")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the child tract as JSON")
	return cmd
}

func newTractMergeFromCmd(env *Env, f *tractFlags) *cobra.Command {
	var into string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge-from CHILD [--into PARENT]",
		Short: "Merge a child's work into its parent by reference (a merge commit, nothing copied)",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			res, err := s.repo.MergeFrom(cmd.Context(), args[0], into)
			if err != nil {
				return tractErr(err)
			}
			if asJSON {
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTractBlameCmd(env *Env, f *tractFlags) *cobra.Command {
	var o tract.CompileOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "blame [--json]",
		Short: "Map every compiled message to its commit, author tract and spawn path",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			entries, err := s.repo.Blame(cmd.Context(), s.tract, o)
			if err != nil {
				return tractErr(err)
			}
			if asJSON {
				return writeJSON(env.Stdout, entries)
			}
			for _, e := range entries {
				fmt.Fprintf(env.Stdout, "%3d %s %-9s %-12s %s: %s\n", e.Index, e.Commit.Short(), e.Role, e.Tract, strings.Join(e.SpawnPath, " > "), e.Summary)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&o.At, "at", "", "blame the compile as of this ref")
	cmd.Flags().IntVar(&o.Budget, "budget", 0, "blame the compile under this budget")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTractRmCmd(env *Env, f *tractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a tract's refs; commits other tracts reference survive gc",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			if err := s.repo.RemoveTract(cmd.Context(), args[0]); err != nil {
				return tractErr(err)
			}
			fmt.Fprintf(env.Stdout, "removed tract %s\n", args[0])
			return nil
		}),
	}
}

func newTractGCCmd(env *Env, f *tractFlags) *cobra.Command {
	var retention string
	var dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "gc [--retention DUR] [--dry-run]",
		Short: "Remove commits no tract reaches (older than the retention)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			keep, err := tractParseRetention(retention)
			if err != nil {
				return err
			}
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			o := tract.GCOptions{Retention: keep, DryRun: dryRun}
			if env.Progress() {
				o.Progress = func(phase string, done, total int) {
					if total > 0 {
						fmt.Fprintf(env.Stderr, "\rgc: %s %d/%d\x1b[K", phase, done, total)
					} else {
						fmt.Fprintf(env.Stderr, "\rgc: %s %d\x1b[K", phase, done)
					}
				}
			}
			rep, err := s.repo.GC(cmd.Context(), o)
			if o.Progress != nil {
				fmt.Fprint(env.Stderr, "\r\x1b[K")
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(env.Stdout, rep)
			}
			if dryRun {
				for _, h := range rep.Removed {
					fmt.Fprintf(env.Stdout, "would remove %s\n", h)
				}
				fmt.Fprintf(env.Stdout, "dry run: %d of %d commits unreachable\n", len(rep.Removed), rep.Scanned)
				return nil
			}
			fmt.Fprintf(env.Stdout, "removed %d commits, %d blobs, %d reflog entries; %d commits kept\n",
				len(rep.Removed), rep.Blobs, rep.Reflog, rep.Scanned-len(rep.Removed))
			return nil
		},
	}
	cmd.Flags().StringVar(&retention, "retention", "7d", "keep unreachable commits and reflog entries younger than this (e.g. 0s, 12h, 7d)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be removed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// tractParseRetention accepts Go durations plus a "d" (days) unit.
func tractParseRetention(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(d, "%d", &days); err == nil && days >= 0 && fmt.Sprint(days) == d {
			return time.Duration(days) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, usageError("invalid --retention %q (want a duration such as 0s, 12h or 7d)", s)
	}
	return d, nil
}
