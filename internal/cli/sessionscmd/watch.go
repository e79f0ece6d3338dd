package sessionscmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/sessions"
)

func watchCmd(env *clienv.Env) *cobra.Command {
	var (
		sf       storeFlags
		from     string
		all      bool
		keep     bool
		once     bool
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:   "watch [--from H] [--all] [--interval 2s] [--once]",
		Short: "Catch up sessions no hook recorded, until stopped",
		Long: `Watch the harnesses' session folders (as lineage sessions import finds them:
this project's, --all every project's) and import what each transcript gains:
the sessions a hook did not record (a harness without hook install --record,
a hook that failed). Every --interval the files are listed again; only those
whose size or time changed are read, each from where the last read stopped.
A transcript lineage cannot read is named on stderr and tried again when it
changes; the others go on. Each session that gained records is one line on
stdout. Ctrl-C (SIGINT) or SIGTERM stops it cleanly between rounds (exit 0).
--once runs one round and exits (3 when a transcript could not be read).`,
		Example: `  lineage sessions watch --all
  lineage sessions watch --from gemini --interval 10s
  lineage sessions watch --once`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			harnesses, err := parseFrom(from)
			if err != nil {
				return err
			}
			if interval < 100*time.Millisecond {
				return clienv.UsageError("--interval %v: want 100ms or more", interval)
			}
			repo, done, err := sf.open(cmd.Context(), env, true)
			if err != nil {
				return err
			}
			defer done()
			w := &sessions.Watcher{
				Importer: &sessions.Importer{Repo: repo, KeepSecrets: keep, LockPath: sf.lock},
				List: func() ([]sessions.Source, error) {
					return sessions.Discover(harnesses, sessions.Env{Getenv: env.Getenv, Home: env.Host().Home}, env.Dir, all)
				},
			}
			if once {
				rep, failed, err := w.Round(cmd.Context())
				if err != nil {
					return clienv.TractErr(err)
				}
				writeRound(env, rep, failed)
				if len(failed) > 0 {
					return clienv.FindingError(fmt.Errorf("%s could not be read (named above)", plural(len(failed), "transcript")))
				}
				return nil
			}
			env.NoteServing()
			fmt.Fprintf(env.Stderr, "lineage: watching the session folders every %v (Ctrl-C stops)\n", interval)
			err = w.Watch(cmd.Context(), interval, func(rep sessions.Report, failed []sessions.Failed) { writeRound(env, rep, failed) })
			if err != nil {
				return clienv.TractErr(err)
			}
			fmt.Fprintln(env.Stderr, "lineage: stopped watching")
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&from, "from", "", "the harness: claude, codex or gemini (default: every harness lineage reads)")
	cmd.Flags().BoolVar(&all, "all", false, "watch the sessions of every project, not only this one")
	cmd.Flags().BoolVar(&keep, "keep-secrets", false, "store what looks like an API key, token or private key in clear")
	cmd.Flags().BoolVar(&once, "once", false, "run one round and exit")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "how often to look for what changed")
	return cmd
}

// writeRound prints the sessions a round added to (one line each) and
// names the transcripts it could not read.
func writeRound(env *clienv.Env, rep sessions.Report, failed []sessions.Failed) {
	for _, s := range rep.Sessions {
		if s.Added > 0 {
			writeSession(env.Stdout, s)
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(env.Stderr, "warning: %s: %s\n", s.Tract, w)
		}
	}
	for _, f := range failed {
		fmt.Fprintf(env.Stderr, "warning: %v (tried again when it changes)\n", f.Err)
	}
}
