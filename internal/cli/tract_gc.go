package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
	"github.com/spf13/cobra"
)

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
	var dryRun bool
	var asJSON jsonFlag
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
			if asJSON.set {
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
	asJSON.add(cmd, "")
	return cmd
}

func newTractMigrateCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Upgrade the store's schema to this lineage's (read commands never do; writes do on open)",
		Args:  exactArgs(0),
		RunE: f.withSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			m, ok := s.store.(stores.Migrator)
			if !ok {
				return fmt.Errorf("store %s: does not report its schema version", s.where)
			}
			from, to := m.Migrated()
			if asJSON.set {
				return writeJSON(env.Stdout, struct {
					Store string `json:"store"`
					From  int    `json:"from"`
					To    int    `json:"to"`
				}{s.where, from, to})
			}
			if from == to {
				fmt.Fprintf(env.Stdout, "store %s is at schema version %d: nothing to do\n", s.where, to)
			} else {
				fmt.Fprintf(env.Stdout, "migrated store %s from schema version %d to %d\n", s.where, from, to)
			}
			return nil
		}),
	}
	asJSON.add(cmd, "")
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

func newTractVerifyCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute every hash and check every parent, edit target and ref (exit 3 on damage)",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			rep, err := s.repo.Verify(cmd.Context())
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
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
			if !asJSON.set {
				fmt.Fprintf(env.Stdout, "ok: %d blobs, %d commits, %d refs\n", rep.Blobs, rep.Commits, rep.Refs)
			}
			return nil
		}),
	}
	asJSON.add(cmd, "")
	return cmd
}
