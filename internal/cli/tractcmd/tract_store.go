package tractcmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/cli/tracttext"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

func newTractRmCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a tract's refs; commits other tracts reference survive gc",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			if err := s.Repo.RemoveTract(cmd.Context(), args[0]); err != nil {
				return clienv.TractErr(err)
			}
			fmt.Fprintf(env.Stdout, "removed tract %s\n", args[0])
			return nil
		}),
	}
}

func newTractGCCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var retention string
	var dryRun bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "gc [--retention DUR] [--dry-run]",
		Short: "Remove commits no tract reaches (older than the retention)",
		Args:  clienv.ExactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			keep, err := tractParseRetention(retention)
			if err != nil {
				return err
			}
			s, err := f.Session(cmd, env)
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
			rep, err := s.Repo.GC(cmd.Context(), o)
			if o.Progress != nil {
				fmt.Fprint(env.Stderr, "\r\x1b[K")
			}
			if err != nil {
				return err
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, rep)
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
	asJSON.Add(cmd, "")
	return cmd
}

func newTractMigrateCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Upgrade the store's schema to this lineage's (read commands never do; writes do on open)",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			m, ok := s.Store.(stores.Migrator)
			if !ok {
				return fmt.Errorf("store %s: does not report its schema version", s.Where)
			}
			from, to := m.Migrated()
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, struct {
					Store string `json:"store"`
					From  int    `json:"from"`
					To    int    `json:"to"`
				}{s.Where, from, to})
			}
			if from == to {
				fmt.Fprintf(env.Stdout, "store %s is at schema version %d: nothing to do\n", s.Where, to)
			} else {
				fmt.Fprintf(env.Stdout, "migrated store %s from schema version %d to %d\n", s.Where, from, to)
			}
			return nil
		}),
	}
	asJSON.Add(cmd, "")
	return cmd
}

// tractParseRetention accepts Go durations plus a "d" (days) unit.
func tractParseRetention(s string) (time.Duration, error) {
	d, err := tract.ParseRetention(s)
	if err != nil {
		return 0, clienv.UsageError("invalid --retention %q (want a duration such as 0s, 12h or 7d)", s)
	}
	return d, nil
}

func newTractVerifyCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute every hash and check every parent, edit target and ref (exit 3 on damage)",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			rep, err := s.Repo.Verify(cmd.Context())
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				if err := clienv.WriteJSON(env.Stdout, rep); err != nil {
					return err
				}
			} else {
				for _, d := range rep.Damage {
					fmt.Fprintln(env.Stdout, d.String())
				}
			}
			if len(rep.Damage) > 0 {
				return clienv.FindingError(fmt.Errorf("verify: %d problems in %s", len(rep.Damage), s.Where))
			}
			if !asJSON.Set {
				fmt.Fprintf(env.Stdout, "ok: %d blobs, %d commits, %d refs\n", rep.Blobs, rep.Commits, rep.Refs)
			}
			return nil
		}),
	}
	asJSON.Add(cmd, "")
	return cmd
}

func newTractListCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var tree bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "list [--tree]",
		Short: "List tracts (--tree: as a spawn tree)",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			list, err := s.Repo.List(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, list)
			}
			if tree {
				fmt.Fprint(env.Stdout, tracttext.SpawnTree(list))
				return nil
			}
			for _, t := range list {
				mark := " "
				if t.Name == s.Tract {
					mark = "*"
				}
				head := "(no commits)"
				if t.Head != "" {
					head = t.Head.Short()
				}
				fmt.Fprintf(env.Stdout, "%s %s %s\n", mark, fsx.LineSafe(t.Name), head)
			}
			return nil
		}),
	}
	asJSON.Add(cmd, "")
	cmd.Flags().BoolVar(&tree, "tree", false, "show spawn relations as a tree")
	return cmd
}

func newTractInitCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the store (.lineage/lineage.db here) and tract main",
		Args:  clienv.ExactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			url := env.Host().NewStoreURL(f.Store, env.Dir)
			s, err := f.SessionAt(cmd, env, url, true, false)
			if err != nil {
				return err
			}
			defer s.Close()
			_, created, err := s.Repo.Init(cmd.Context())
			if err != nil {
				return err
			}
			if !created {
				fmt.Fprintf(env.Stdout, "store %s already initialized\n", s.Where)
				return nil
			}
			fmt.Fprintf(env.Stdout, "initialized store %s with tract main\n", s.Where)
			return nil
		},
	}
}

func newTractNewCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "new NAME",
		Short: "Create an empty tract",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			if _, err := s.Repo.NewTract(cmd.Context(), args[0]); err != nil {
				return clienv.TractErr(err)
			}
			fmt.Fprintf(env.Stdout, "created tract %s\n", args[0])
			return nil
		}),
	}
}
