package agentscmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/journal"
)

// writeFlags are shared by the commands that write.
type writeFlags struct {
	scope     string
	agentsDir string
}

func (w *writeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&w.scope, "write-scope", journal.ScopeSubmodule, "write root: submodule (repo root of the path), workspace or local (the path)")
	cmd.Flags().StringVar(&w.agentsDir, "agents-dir", "", "outside any repository, write to DIR/<slug>/")
}

// journalOptions builds the write options with the environment's clock.
func journalOptions(env *clienv.Env, f *clienv.AgentsFlags, w *writeFlags) (journal.Options, error) {
	now, err := env.Clock()
	if err != nil {
		return journal.Options{}, err
	}
	o := journal.Options{Agents: f.Options(env), Scope: w.scope, AgentsDir: w.agentsDir, Now: now}
	if err := o.Validate(); err != nil {
		return journal.Options{}, clienv.UsageError("--write-scope: %v", err)
	}
	return o, nil
}

// addAgentsWriteCmds adds journal, transfer and mirrors.
func addAgentsWriteCmds(cmd *cobra.Command, env *clienv.Env, f *clienv.AgentsFlags) {
	cmd.AddCommand(newAgentsJournalCmd(env, f), newAgentsTransferCmd(env, f), newAgentsMirrorsCmd(env, f))
	addAgentsAuthoringCmds(cmd, env, f)
	addAgentsEditCmds(cmd, env, f)
}

func newAgentsTransferCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var w writeFlags
	var tr journal.Transfer
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "transfer --slug S --from P1 --to P2",
		Short: "Copy agency entries to an ancestor domain (promotion)",
		Long: `Copy agency entries (all, or those named by --id) from the agency at the
write root of P1 to the one at the write root of P2, which must be an
ancestor domain. Copies keep their id and gain "transferredFrom"; entries
already present are skipped, so a repeated transfer writes nothing.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(tr.Slug); err != nil {
				return err
			}
			if tr.From == "" || tr.To == "" {
				return clienv.UsageError("--from and --to are required")
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			res, err := journal.RunTransfer(cmd.Context(), opts, tr)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			verb := "copied"
			if res.DryRun {
				verb = "would copy"
			}
			fmt.Fprintf(env.Stdout, "%s %d, skipped %d: %s\n", verb, len(res.Copied), len(res.Skipped), fsx.LineSafe(res.File))
			for _, id := range res.Copied {
				fmt.Fprintf(env.Stdout, "  + %s\n", fsx.LineSafe(id))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&tr.Slug, "slug", "", "agent slug")
	fl.StringVar(&tr.From, "from", "", "source path P1")
	fl.StringVar(&tr.To, "to", "", "destination path P2 (an ancestor domain)")
	fl.StringArrayVar(&tr.IDs, "id", nil, "entry id to copy (repeatable; default all)")
	fl.BoolVar(&tr.DryRun, "dry-run", false, "show what would be copied, write nothing")
	asJSON.Add(cmd, "")
	w.add(cmd)
	return cmd
}

func newAgentsMirrorsCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var w writeFlags
	var slugs []string
	var dryRun bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "mirrors",
		Short: "Write Markdown views of the triads under the write root",
		Long: `Write .generated/<slug>.<kind>.triad.md beside every triad document of the
contexts under the write root of the path. The bytes depend only on the
documents; unchanged files are not rewritten.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, s := range slugs {
				if err := agents.ValidateSlug(s); err != nil {
					return clienv.UsageError("%v", err)
				}
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			ms, err := journal.Mirrors(opts, slugs, dryRun)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if err := mirrorsCoverSlugs(ms, slugs, opts.Agents.Path); err != nil {
				return err
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, ms)
			}
			for _, m := range ms {
				state := "unchanged"
				switch {
				case m.Changed && dryRun:
					state = "would write"
				case m.Changed:
					state = "wrote"
				}
				fmt.Fprintf(env.Stdout, "%s %s\n", state, fsx.LineSafe(m.File))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&slugs, "slug", nil, "only this slug (repeatable)")
	fl.BoolVar(&dryRun, "dry-run", false, "show what would be written, write nothing")
	asJSON.Add(cmd, "")
	w.add(cmd)
	return cmd
}

// mirrorsCoverSlugs is an unknown-slug error for the first --slug that no
// mirror was written (or found unchanged) for.
func mirrorsCoverSlugs(ms []journal.Mirror, slugs []string, path string) error {
	for _, s := range slugs {
		found := false
		for _, m := range ms {
			if strings.HasPrefix(filepath.Base(m.File), s+".") {
				found = true
				break
			}
		}
		if !found {
			return &agents.NoContextError{Slug: s, Path: path}
		}
	}
	return nil
}
