package tractcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/tract"
)

func newTractPruneCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var o tract.PruneOptions
	var toolResults bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "prune --tool-results [--older-than N] [--keep-last K] [--larger-than T] [--dry-run]",
		Short: "Hide stale tool results from the compile, by annotation (the originals stay)",
		Long: `Hide stale tool results from the current tract's compile: each selected
result gets the tract's skip annotation (reason "prune: tool result"); the
commits stay, and 'tract annotate REF normal' brings one back. Pinned results
are never pruned; a call whose result is pruned compiles as text of its turn.

--older-than N keeps the results of the newest N turns (a turn starts at a
user's message), --keep-last K the newest K results, --larger-than T prunes
only results over T tokens; every filter given must hold.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !toolResults {
				return clienv.UsageError("name what to prune: --tool-results")
			}
			s, err := f.Session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			res, err := s.Repo.Prune(cmd.Context(), s.Tract, o)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			var hashes []string
			for _, d := range res.Pruned {
				hashes = append(hashes, d.Commit.Short())
			}
			verb := "pruned"
			if res.DryRun {
				verb = "dry run: would prune"
			}
			fmt.Fprintf(env.Stdout, "%s %d tool result(s) (%d tokens)", verb, len(res.Pruned), res.Tokens)
			if len(hashes) > 0 {
				fmt.Fprintf(env.Stdout, ": %s", strings.Join(hashes, " "))
			}
			fmt.Fprintln(env.Stdout)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&toolResults, "tool-results", false, "prune tool results")
	fl.IntVar(&o.OlderThan, "older-than", 0, "only results with at least N turns after them")
	fl.IntVar(&o.KeepLast, "keep-last", 0, "keep the newest K tool results")
	fl.IntVar(&o.LargerThan, "larger-than", 0, "only results over T tokens")
	fl.BoolVar(&o.DryRun, "dry-run", false, "list what would be pruned, annotate nothing")
	fl.StringVar(&o.Encoding, "encoding", "", "token encoding: o200k_base (default) or cl100k_base")
	asJSON.Add(cmd, "print the pruned results as JSON")
	return cmd
}
