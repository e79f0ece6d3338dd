package agentscmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/journal"
	"github.com/agentlineage/lineage/triad"
)

// addAgentsAuthoringCmds adds the CLIA authoring commands: commission,
// roster, normalize, migrate, cleanup-backups and render.
func addAgentsAuthoringCmds(cmd *cobra.Command, env *clienv.Env, f *clienv.AgentsFlags) {
	cmd.AddCommand(newAgentsCommissionCmd(env, f), newAgentsRosterCmd(env, f),
		newAgentsTidyCmd(env, f, "normalize"), newAgentsTidyCmd(env, f, "migrate"),
		newAgentsCleanupBackupsCmd(env, f), newAgentsRenderCmd(env, f))
}

// journalArgs are the journal flags beyond journal.Entry's.
type journalArgs struct {
	slugs, agents, details, links []string
	contribs                      []string
	tags, participants            string
	dirs                          []string
	detailsText                   string
	daily                         bool
	highlights, focus, nextSteps  []string
	agentVersion                  string
	createIfMissing               bool
	asJSON                        clienv.JSONFlag
}

func newAgentsJournalCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var w writeFlags
	var e journal.LogEntry
	var a journalArgs
	cmd := &cobra.Command{
		Use:   "journal --slug S --note TEXT",
		Short: "Append one entry to the agent's agency log (or its day document)",
		Long: `Append one entry to the agency log of each --slug at the write root of the
path: CLIA's "triads agency log" with --detail/--details, --participants,
--link href|kind|title and --contrib by=,type=,evidence=[,weight=].

The entry id is the SHA-256 of the entry's canonical JSON unless --id is
given; an id already in the file is not written again (exit 0), unless
--upsert, which replaces that entry in place (without --id: the entry of
the same UTC day with the same title, else kind, keeping its id); with
--upsert the kind is "log" unless --kind is given, as in CLIA.

--daily writes CLIA's journal/YYYY-MM-DD.json instead (--highlight,
--focus, --next-step, --agent-version), merging into an existing day.
Set LINEAGE_NOW (RFC 3339) to fix the time.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.slugs = append(a.slugs, a.agents...)
			if len(a.slugs) == 0 {
				return clienv.UsageError("--slug is required")
			}
			for _, s := range a.slugs {
				if err := clienv.RequireSlug(s); err != nil {
					return err
				}
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			e.Tags, e.DirsTouched, e.Participants = instructions.SplitList(a.tags), splitAll(a.dirs), instructions.SplitList(a.participants)
			if a.daily {
				return runDaily(cmd, env, opts, e, a)
			}
			if strings.TrimSpace(e.Note) == "" {
				return clienv.UsageError("--note is required")
			}
			if err := parseRich(&e, a, cmd.Flags().Changed("kind")); err != nil {
				return err
			}
			e.Slugs, e.NoCreate = a.slugs, !a.createIfMissing
			res, err := journal.Log(cmd.Context(), opts, e)
			printLog(env, res, a.asJSON.Set)
			return clienv.AgentsError(err)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&a.slugs, "slug", nil, "agent slug (repeatable: one entry in each agent's log)")
	fl.StringArrayVar(&a.agents, "agent", nil, "CLIA's spelling of --slug (repeatable)")
	fl.StringVar(&e.Note, "note", "", "the entry's text (its summary)")
	fl.StringVar(&e.Note, "summary", "", "CLIA's spelling of --note")
	fl.StringVar(&e.Title, "title", "", "entry title (default: the note's first line)")
	fl.StringVar(&e.Kind, "kind", "journal", "entry kind")
	fl.StringVar(&a.tags, "tags", "", "comma-separated tags")
	fl.StringVar(&e.Signature, "signature", "auto", "auto (the profile's extensions.journalSignature, else -<slug>) or a signature")
	fl.StringArrayVar(&a.dirs, "dirs-touched", nil, `comma-separated directories, unioned into extensions["x-dirsTouched"] (repeatable, as CLIA documents it)`)
	fl.StringVar(&e.ID, "id", "", "entry id (default: content hash)")
	fl.StringArrayVar(&a.details, "detail", nil, "detail line (repeatable)")
	fl.StringVar(&a.detailsText, "details", "", "details text (after the --detail lines)")
	fl.StringVar(&a.participants, "participants", "", "comma-separated agent slugs involved: tags, and contributors unless --contrib")
	fl.StringArrayVar(&a.links, "link", nil, "link 'href' or 'href|kind|title' (repeatable)")
	fl.StringArrayVar(&a.contribs, "contrib", nil, "contribution 'by=<slug>,type=<type>,evidence=<text>[,weight=<n>]' (repeatable)")
	fl.BoolVar(&e.Upsert, "upsert", false, "replace the matching entry in place instead of skipping it")
	fl.BoolVar(&a.createIfMissing, "create-if-missing", true, "create the agency document when the agent has none (=false: skip that agent, as CLIA does by default)")
	fl.BoolVar(&a.daily, "daily", false, "write the day document journal/YYYY-MM-DD.json instead")
	fl.StringArrayVar(&a.highlights, "highlight", nil, "--daily: a highlight (repeatable)")
	fl.StringArrayVar(&a.focus, "focus", nil, "--daily: a focus item (repeatable)")
	fl.StringArrayVar(&a.nextSteps, "next-step", nil, "--daily: a next step (repeatable)")
	fl.StringVar(&a.agentVersion, "agent-version", "", "--daily: the agent's version")
	a.asJSON.Add(cmd, `print {"file","written","entry"} (an array of them for several slugs)`)
	w.add(cmd)
	return cmd
}

// splitAll is the comma-separated items of every value of a repeatable
// flag, in order.
func splitAll(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, instructions.SplitList(v)...)
	}
	return out
}

func parseRich(e *journal.LogEntry, a journalArgs, kindSet bool) error {
	if e.Upsert && !kindSet {
		e.Kind = "log" // CLIA's `triads agency log` default
	}
	e.Details = a.details
	if a.detailsText != "" {
		e.Details = append(append([]string{}, a.details...), a.detailsText)
	}
	for _, s := range a.links {
		l, err := journal.ParseLink(s)
		if err != nil {
			return clienv.UsageError("--link: %v", err)
		}
		e.Links = append(e.Links, l)
	}
	for _, s := range a.contribs {
		c, err := journal.ParseContribution(s)
		if err != nil {
			return clienv.UsageError("--contrib: %v", err)
		}
		e.Contributions = append(e.Contributions, c)
	}
	return nil
}

func printLog(env *clienv.Env, res []journal.LogResult, asJSON bool) {
	arr := triad.NewArray()
	for _, r := range res {
		switch {
		case r.Missing:
			fmt.Fprintf(env.Stderr, "lineage: %s has no agency document in %s; not written (pass --create-if-missing)\n", r.Slug, r.File)
		case !r.Written:
			fmt.Fprintf(env.Stderr, "lineage: entry %s is already in %s; not written\n", fsx.LineSafe(r.Entry.Str("id")), fsx.LineSafe(r.File))
		}
		if !asJSON {
			fmt.Fprintln(env.Stdout, r.File)
			continue
		}
		out := triad.NewObject()
		out.Set("file", triad.NewString(r.File))
		out.Set("written", &triad.Value{Kind: triad.Bool, Text: fmt.Sprint(r.Written)})
		if r.Replaced {
			out.Set("replaced", &triad.Value{Kind: triad.Bool, Text: "true"})
		}
		if r.Entry != nil {
			out.Set("entry", r.Entry)
		}
		arr.Items = append(arr.Items, out)
	}
	switch {
	case !asJSON || len(arr.Items) == 0:
	case len(arr.Items) == 1:
		env.Stdout.Write(triad.Encode(arr.Items[0], triad.EncodeOptions{}))
	default:
		env.Stdout.Write(triad.Encode(arr, triad.EncodeOptions{}))
	}
}

func runDaily(cmd *cobra.Command, env *clienv.Env, opts journal.Options, e journal.LogEntry, a journalArgs) error {
	if len(a.slugs) != 1 {
		return clienv.UsageError("--daily takes one --slug")
	}
	if len(a.highlights)+len(a.focus)+len(a.nextSteps) == 0 {
		return clienv.UsageError("--daily needs --highlight, --focus or --next-step")
	}
	res, err := journal.WriteDaily(cmd.Context(), opts, journal.Daily{Slug: a.slugs[0], AgentVersion: a.agentVersion,
		Highlights: a.highlights, Focus: a.focus, NextSteps: a.nextSteps, Signature: e.Signature, DirsTouched: e.DirsTouched})
	if err != nil {
		return clienv.AgentsError(err)
	}
	if !res.Written {
		fmt.Fprintf(env.Stderr, "lineage: %s already holds all of it; not written\n", res.File)
	}
	if a.asJSON.Set {
		out := triad.NewObject()
		out.Set("file", triad.NewString(res.File))
		out.Set("written", &triad.Value{Kind: triad.Bool, Text: fmt.Sprint(res.Written)})
		out.Set("day", res.Doc)
		_, err = env.Stdout.Write(triad.Encode(out, triad.EncodeOptions{}))
		return err
	}
	fmt.Fprintln(env.Stdout, fsx.LineSafe(res.File))
	return nil
}

func newAgentsCommissionCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var w writeFlags
	var c journal.Commission
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "commission SLUG",
		Short: "Create an agent: its three triad documents and its AGENTS.md roster row",
		Long: `Create <write root>/<agents root>/SLUG/ with an agent, agenda and agency
document (<slug>@<write root name>.<kind>.triad.json) and add the agent's
row to <write root>/AGENTS.md. Idempotent: documents that exist are left
alone and the row is not added twice. --from copies the agent and agenda
documents of a template (a directory, or an agent slug seen from the path).`,
		Args: clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Slug = args[0]
			if err := clienv.RequireSlug(c.Slug); err != nil {
				return err
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			res, err := journal.Commissioned(cmd.Context(), opts, c)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			for _, fl := range res.Files {
				fmt.Fprintf(env.Stdout, "%s %s\n", fl.State, fl.File)
				if c.DryRun && fl.Content != "" {
					fmt.Fprint(env.Stdout, fl.Content)
				}
			}
			fmt.Fprintf(env.Stdout, "%s %s\n", rosterState(res.Roster, c.DryRun), res.Roster.File)
			if c.DryRun {
				fmt.Fprintln(env.Stdout, res.Roster.Row)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&c.Title, "title", "", "the agent's title (default: the slug)")
	fl.StringVar(&c.Role, "role", "", "the agent's role (default: the slug)")
	fl.StringVar(&c.Summary, "summary", "", "the roster row's mission line (default: the role, else the title)")
	fl.StringVar(&c.Signature, "signature", "", "extensions.journalSignature (e.g. -CC)")
	fl.StringVar(&c.From, "from", "", "template: a directory of triad documents, or an agent slug")
	fl.BoolVar(&c.DryRun, "dry-run", false, "show the files, write nothing")
	asJSON.Add(cmd, "")
	w.add(cmd)
	return cmd
}

func rosterState(r *journal.RosterResult, dryRun bool) string {
	switch {
	case r.Written || (dryRun && r.Created):
		if dryRun {
			return "would update"
		}
		return "updated"
	case dryRun && r.After != "" && !r.Created:
		return "would check"
	}
	return "unchanged"
}

func newAgentsRosterCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	roster := clienv.GroupCmd("roster", "The AGENTS.md roster table", "The AGENTS.md roster table at the write root (CLIA's roster spec).")
	roster.Example = `  lineage agents roster update --slug coder --title "Coder" --summary "Writes and reviews the Go code"`
	var w writeFlags
	var r journal.RosterRow
	var dryRun bool
	var asJSON clienv.JSONFlag
	update := &cobra.Command{
		Use:   "update --slug S --title T [--summary X]",
		Short: "Add the agent's row to AGENTS.md at the write root (idempotent)",
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(r.Slug); err != nil {
				return err
			}
			if strings.TrimSpace(r.Title) == "" {
				return clienv.UsageError("--title is required")
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			t, err := journal.WriteRoot(opts.Agents, opts.Scope, opts.AgentsDir)
			if err != nil {
				return clienv.AgentsError(err)
			}
			r.AgentsRoot = opts.Agents.Roots()[0]
			res, err := journal.UpdateRoster(cmd.Context(), t.Root, r, dryRun)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			fmt.Fprintf(env.Stdout, "%s %s\n", map[bool]string{true: "updated", false: "unchanged"}[res.Written], res.File)
			return nil
		},
	}
	fl := update.Flags()
	fl.StringVar(&r.Slug, "slug", "", "agent slug")
	fl.StringVar(&r.Title, "title", "", "the row's title")
	fl.StringVar(&r.Summary, "summary", "", "one-line mission")
	fl.BoolVar(&dryRun, "dry-run", false, "write nothing")
	asJSON.Add(update, "")
	w.add(update)
	roster.AddCommand(update)
	return roster
}

func newAgentsTidyCmd(env *clienv.Env, f *clienv.AgentsFlags, name string) *cobra.Command {
	var w writeFlags
	var t journal.Tidy
	var kinds []string
	var dryRun bool
	var asJSON clienv.JSONFlag
	short := map[string]string{
		"normalize": "Order triad arrays by CLIA's rules (dry run unless --write)",
		"migrate":   "Bring legacy names and pre-0.4.0 shapes to 0.4.0 (diff unless --write)",
	}[name]
	cmd := &cobra.Command{
		Use:   name + " (--slug S | --dir D) [--write]",
		Short: short,
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (t.Slug == "") == (t.Dir == "") {
				return clienv.UsageError("give exactly one of --slug or --dir")
			}
			if t.Slug != "" {
				if err := clienv.RequireSlug(t.Slug); err != nil {
					return err
				}
			}
			if t.Dir != "" {
				t.Dir = fsx.Abs(env.Dir, t.Dir)
			}
			if dryRun && t.Write {
				return clienv.UsageError("--dry-run and --write exclude each other")
			}
			for _, k := range kinds {
				dk, err := triad.ParseKind(k)
				if err != nil {
					return clienv.UsageError("--kind: %v", err)
				}
				t.Kinds = append(t.Kinds, dk)
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			run := journal.Normalize
			if name == "migrate" {
				run = journal.Migrate
			}
			res, err := run(cmd.Context(), opts, t)
			if err != nil && res == nil {
				return clienv.AgentsError(err)
			}
			if err == nil && len(res) == 0 && t.Slug != "" {
				return &agents.NoContextError{Slug: t.Slug, Path: opts.Agents.Path}
			}
			if asJSON.Set {
				if jerr := clienv.WriteJSON(env.Stdout, res); jerr != nil {
					return jerr
				}
				return clienv.AgentsError(err)
			}
			printTidied(env.Stdout, res, t.Write)
			return clienv.AgentsError(err)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&t.Slug, "slug", "", "the agent's context at the write root")
	fl.StringVar(&t.Dir, "dir", "", "every triad document under this directory (relative to the current directory)")
	fl.StringArrayVar(&kinds, "kind", nil, "only this kind: agent, agenda or agency (repeatable; default all)")
	fl.BoolVar(&t.Write, "write", false, "apply the changes")
	fl.BoolVar(&dryRun, "dry-run", false, "show the changes, write nothing (the default)")
	if name == "normalize" {
		fl.StringVar(&t.SortBacklog, "sort-backlog", "none", "agenda backlog order: none, title or id")
	}
	asJSON.Add(cmd, "")
	w.add(cmd)
	return cmd
}

// printTidied reports what normalize or migrate did (write) or would do,
// file by file, with the diff of a dry run.
func printTidied(w io.Writer, res []journal.TidyResult, write bool) {
	changed := 0
	for _, r := range res {
		state := "unchanged"
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "skipped %s: %s\n", r.File, r.Skipped)
			continue
		case r.Written:
			state, changed = "wrote", changed+1
		case r.Changed:
			state, changed = "would change", changed+1
		}
		fmt.Fprintf(w, "%s %s\n", state, r.File)
		if r.RenamedFrom != "" {
			fmt.Fprintf(w, "  renames %s\n", fsx.LineSafe(r.RenamedFrom))
		}
		for _, ref := range r.References {
			fmt.Fprintf(w, "  rewrites %s\n", fsx.LineSafe(ref))
		}
		if !write && r.Diff != "" {
			fmt.Fprint(w, r.Diff)
		}
	}
	fmt.Fprintf(w, "%d of %d file(s) %s\n", changed, len(res), map[bool]string{true: "changed", false: "would change"}[write])
}

func newAgentsRenderCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var slug, kind string
	var merged bool
	cmd := &cobra.Command{
		Use:   "render --kind K --slug S",
		Short: "Print a triad document as the mirrors' Markdown",
		Long: `Print the most local document of the kind in the slug's chain (or, with
--merged, the merged profile) as the Markdown the mirrors write.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(slug); err != nil {
				return err
			}
			k, err := triad.ParseKind(kind)
			if err != nil {
				return clienv.UsageError("--kind: %v", err)
			}
			md, _, err := journal.Render(f.Options(env), slug, k, merged)
			if err != nil {
				return clienv.AgentsError(err)
			}
			_, err = env.Stdout.Write(md)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&slug, "slug", "", "agent slug")
	fl.StringVar(&kind, "kind", "agenda", "agent, agenda or agency")
	fl.BoolVar(&merged, "merged", false, "render the merged profile")
	return cmd
}
