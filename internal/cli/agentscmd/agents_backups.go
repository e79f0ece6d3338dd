package agentscmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/journal"
)

// newAgentsCleanupBackupsCmd is CLIA's cleanup-backups: list the .bak
// files beside triad documents and, with --apply, remove the safe ones.
func newAgentsCleanupBackupsCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var w writeFlags
	var c journal.BackupCleanup
	var list bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "cleanup-backups (--slug S | --dir D) [--apply]",
		Short: "List .bak files beside triad documents; --apply removes the safe ones",
		Long: `List the .bak files of the slug's context (or of every directory under --dir),
each with the document it is a backup of and whether removing it is safe: the
backup, brought to the current shape as migrate would, adds nothing to the
current document. --apply removes the safe ones (checked again under the
directory's lock); the others stay, with the reason.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (c.Slug == "") == (c.Dir == "") {
				return clienv.UsageError("give exactly one of --slug or --dir")
			}
			if list && c.Apply {
				return clienv.UsageError("--list and --apply exclude each other")
			}
			if c.Slug != "" {
				if err := clienv.RequireSlug(c.Slug); err != nil {
					return err
				}
			}
			if c.Dir != "" {
				c.Dir = fsx.Abs(env.Dir, c.Dir)
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			res, err := journal.CleanupBackups(cmd.Context(), opts, c)
			if err != nil && res == nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				if jerr := clienv.WriteJSON(env.Stdout, res); jerr != nil {
					return jerr
				}
				return clienv.AgentsError(err)
			}
			printBackups(env.Stdout, res, c.Apply)
			return clienv.AgentsError(err)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&c.Slug, "slug", "", "the agent's context at the write root")
	fl.StringVar(&c.Dir, "dir", "", "every directory under this one (relative to the current directory)")
	fl.BoolVar(&c.Apply, "apply", false, "remove the backups that are safe to remove")
	fl.BoolVar(&list, "list", false, "list only (the default)")
	asJSON.Add(cmd, "")
	w.add(cmd)
	return cmd
}

// printBackups writes one line per backup and a count.
func printBackups(w io.Writer, res []journal.Backup, apply bool) {
	n := 0
	for _, b := range res {
		of := ""
		if b.Current != "" {
			of = " (of " + fsx.LineSafe(b.Current) + ")"
		}
		switch {
		case b.Removed:
			n++
			fmt.Fprintf(w, "removed %s%s\n", fsx.LineSafe(b.File), of)
		case b.Safe && !apply:
			n++
			fmt.Fprintf(w, "safe %s%s\n", fsx.LineSafe(b.File), of)
		case b.Safe:
			fmt.Fprintf(w, "keep %s%s: changed while it was checked\n", fsx.LineSafe(b.File), of)
		default:
			fmt.Fprintf(w, "keep %s%s: %s\n", fsx.LineSafe(b.File), of, fsx.LineSafe(b.Reason))
		}
	}
	verb := "safe to remove (--apply removes them)"
	if apply {
		verb = "removed"
	}
	fmt.Fprintf(w, "%d of %d backup(s) %s\n", n, len(res), verb)
}
