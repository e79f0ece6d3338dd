package agentscmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/journal"
)

// addAgentsEditCmds adds the commands that change an agent: set,
// set-contribution-mix, set-focus-domains, move and rename.
func addAgentsEditCmds(cmd *cobra.Command, env *clienv.Env, f *clienv.AgentsFlags) {
	cmd.AddCommand(newAgentsSetCmd(env, f, "set"), newAgentsSetCmd(env, f, "set-contribution-mix"),
		newAgentsSetCmd(env, f, "set-focus-domains"), newAgentsMoveCmd(env, f, "move"), newAgentsMoveCmd(env, f, "rename"))
}

// setArgs are the flags of the set commands.
type setArgs struct {
	fields             []string
	primary, secondary string
	domains            []string
	dryRun             bool
	asJSON             clienv.JSONFlag
}

func (a setArgs) edit(name string, e *journal.AgentEdit) error {
	switch name {
	case "set":
		if len(a.fields) == 0 {
			return clienv.UsageError("at least one --field key=value is required")
		}
		for _, fv := range a.fields {
			k, v, ok := strings.Cut(fv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return clienv.UsageError("--field %q: want key=value", fv)
			}
			e.Fields = append(e.Fields, journal.FieldValue{Key: k, Value: v})
		}
	case "set-contribution-mix":
		if a.primary == "" && !e.Merge {
			return clienv.UsageError("--primary is required")
		}
		var err error
		if a.primary != "" {
			if e.Primary, err = journal.ParseMix(a.primary); err != nil {
				return clienv.UsageError("--primary: %v", err)
			}
		}
		if a.secondary != "" {
			if e.Secondary, err = journal.ParseMix(a.secondary); err != nil {
				return clienv.UsageError("--secondary: %v", err)
			}
		}
	default:
		if len(a.domains) == 0 {
			return clienv.UsageError("at least one --domain is required")
		}
		for _, s := range a.domains {
			d, err := journal.ParseFocusDomain(s)
			if err != nil {
				return clienv.UsageError("--domain: %v", err)
			}
			e.Domains = append(e.Domains, d)
		}
	}
	return nil
}

var setShort = map[string]string{
	"set":                  "Set top-level fields of the agent document (--field key=value)",
	"set-contribution-mix": "Set the agent's contributionMix (CLIA's set-contribution-mix)",
	"set-focus-domains":    "Set the agent's focusDomains (CLIA's set-focus-domains)",
}

func newAgentsSetCmd(env *clienv.Env, f *clienv.AgentsFlags, name string) *cobra.Command {
	var w writeFlags
	var e journal.AgentEdit
	var a setArgs
	cmd := &cobra.Command{
		Use:   name + " --slug S",
		Short: setShort[name],
		Long: setShort[name] + `, in the agent document at
the write root of the path (the one journal writes beside). Only the edited
members change: every other key, its order, number texts and the file's
layout stay, and repeating an edit writes nothing. --dry-run prints the
diff instead.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(e.Slug); err != nil {
				return err
			}
			if err := a.edit(name, &e); err != nil {
				return err
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			e.Write = !a.dryRun
			res, err := journal.SetAgent(cmd.Context(), opts, e)
			if err != nil {
				return clienv.AgentsError(err)
			}
			return printSet(env, name, e, res, a)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&e.Slug, "slug", "", "agent slug")
	switch name {
	case "set":
		fl.StringArrayVar(&a.fields, "field", nil, "key=value: a top-level field; the value is JSON when it parses as JSON, else a string (repeatable)")
	case "set-contribution-mix":
		fl.StringVar(&a.primary, "primary", "", "type[=weight],… (weight 1 when omitted)")
		fl.StringVar(&a.secondary, "secondary", "", "type[=weight],… (optional)")
	default:
		fl.StringArrayVar(&a.domains, "domain", nil, "Label=identifier[:weight] (repeatable)")
	}
	if name != "set" {
		fl.BoolVar(&e.Merge, "merge", false, "update the existing list by key (last wins) instead of replacing it")
	}
	fl.BoolVar(&a.dryRun, "dry-run", false, "print the diff; write nothing")
	a.asJSON.Add(cmd, `print {"file","kind","changed","written","diff"}`)
	w.add(cmd)
	return cmd
}

func printSet(env *clienv.Env, name string, e journal.AgentEdit, res journal.TidyResult, a setArgs) error {
	if a.asJSON.Set {
		return clienv.WriteJSON(env.Stdout, res)
	}
	switch {
	case a.dryRun && res.Changed:
		fmt.Fprint(env.Stdout, res.Diff)
	case a.dryRun || !res.Changed:
		fmt.Fprintf(env.Stdout, "unchanged %s\n", fsx.LineSafe(res.File))
	case name == "set-contribution-mix":
		fmt.Fprintf(env.Stdout, "Updated contributionMix for %s: %s\n", e.Slug, fsx.LineSafe(res.File))
	case name == "set-focus-domains":
		fmt.Fprintf(env.Stdout, "Updated focusDomains for %s: %s\n", e.Slug, fsx.LineSafe(res.File))
	default:
		fmt.Fprintf(env.Stdout, "updated %s\n", fsx.LineSafe(res.File))
	}
	return nil
}

func newAgentsMoveCmd(env *clienv.Env, f *clienv.AgentsFlags, name string) *cobra.Command {
	var w writeFlags
	var m journal.Move
	var dryRun bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   name + " --slug S --to NEW",
		Short: "Rename an agent (a new slug), keeping its history and every reference to it",
		Long: `Move the agent's context at the write root of the path — its whole
history: agency log, journal/ days, mirrors, every file — to a new slug
(--to) and/or the write root of another path of the workspace (--to-path,
move only). "<slug>@…" documents, ".generated/<slug>.…" mirrors and a
"slug" field equal to the old slug take the new one; every reference into
the context — inherits of triad and plain JSON documents, in the form it was
written, and the AGENTS.md path cell — is rewritten. The writes are
journaled: a run killed at any point finishes when run again.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(m.Slug); err != nil {
				return err
			}
			if m.To == "" && (name == "rename" || m.ToPath == "") {
				return clienv.UsageError("--to is required")
			}
			opts, err := journalOptions(env, f, &w)
			if err != nil {
				return err
			}
			m.Write = !dryRun
			res, err := journal.MoveAgent(cmd.Context(), opts, m)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			printMove(env, res, dryRun)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&m.Slug, "slug", "", "agent slug")
	fl.StringVar(&m.To, "to", "", "the new slug")
	if name == "move" {
		cmd.Short = "Move an agent's context to another domain and/or slug, keeping its history and references"
		cmd.Use = name + " --slug S (--to NEW | --to-path P)"
		fl.StringVar(&m.ToPath, "to-path", "", "a path whose write root receives the context")
	}
	fl.BoolVar(&dryRun, "dry-run", false, "print what would move and change; write nothing")
	asJSON.Add(cmd, `print {"from","to","files","references","written"}`)
	w.add(cmd)
	return cmd
}

func printMove(env *clienv.Env, res journal.MoveResult, dryRun bool) {
	verb := "moved"
	if dryRun {
		verb = "would move"
	}
	fmt.Fprintf(env.Stdout, "%s %s -> %s\n", verb, fsx.LineSafe(res.From), fsx.LineSafe(res.To))
	for _, mf := range res.Files {
		fmt.Fprintf(env.Stdout, "  %s -> %s\n", fsx.LineSafe(mf.From), fsx.LineSafe(mf.To))
	}
	for _, r := range res.Refs {
		fmt.Fprintf(env.Stdout, "rewrites %s\n", fsx.LineSafe(r.File))
		for _, ref := range r.References {
			fmt.Fprintf(env.Stdout, "  %s\n", fsx.LineSafe(ref))
		}
	}
}
