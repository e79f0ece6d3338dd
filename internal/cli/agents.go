package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// agentsFlags are the flags every agents command shares.
type agentsFlags struct {
	path         string
	roots        []string
	strict       bool
	allowOutside bool
}

func (f *agentsFlags) options(env *Env) agents.Options {
	p := env.Dir
	if f.path != "" {
		p = fsx.Abs(env.Dir, f.path)
	}
	return agents.Options{Path: p, AgentsRoots: f.roots, AllowOutsideInherits: f.allowOutside}
}

func newAgentsCmd(env *Env) *cobra.Command {
	cmd := groupCmd("agents", "CLIA agent triads: contexts, merged profiles, journal",
		`CLIA agent triads (agent, agenda, agency documents under .clia/agents/<slug>/)
seen from a working path: which contexts apply, the deterministic merge of
their documents, and append-only journal writes.`)
	f := &agentsFlags{}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.path, "path", "", "working path P (default: the current directory)")
	pf.StringArrayVar(&f.roots, "agents-root", nil, "agents root searched in every domain root after .clia/agents (repeatable)")
	pf.BoolVar(&f.strict, "strict", false, "treat findings as fatal (exit 3)")
	pf.BoolVar(&f.allowOutside, "allow-outside-inherits", false, "follow inherits that leave the workspace")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := agents.ValidateRoots(f.roots); err != nil {
			return usageError("--agents-root: %v", err)
		}
		return nil
	}
	cmd.AddCommand(
		newAgentsListCmd(env, f),
		newAgentsContextCmd(env, f),
		newAgentsProfileCmd(env, f, "profile"),
		newAgentsProfileCmd(env, f, "plan"),
		newAgentsDoctorCmd(env, f),
		newAgentsLintCmd(env, f),
	)
	addAgentsWriteCmds(cmd, env, f)
	addAgentSlugAlias(cmd)
	return cmd
}

// addAgentSlugAlias accepts CLIA's spelling --agent-slug wherever a
// command under cmd has --slug: both names set the same value.
func addAgentSlugAlias(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if sf := c.Flags().Lookup("slug"); sf != nil && c.Flags().Lookup("agent-slug") == nil {
			c.Flags().Var(sf.Value, "agent-slug", "same as --slug (CLIA's spelling)")
		}
		addAgentSlugAlias(c)
	}
}

// agentsError maps library errors to exit codes: rootChain validation and
// containment → 3, the rest → 1.
func agentsError(err error) error {
	if err == nil {
		return nil
	}
	if agents.IsValidation(err) {
		return findingError(err)
	}
	return err
}

func requireSlug(slug string) error {
	if slug == "" {
		return usageError("--slug is required")
	}
	if err := agents.ValidateSlug(slug); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// printFindings writes the findings of a read to stderr as warnings: a
// skipped document (invalid JSON) does not stop the others from merging.
// With strict, those errors make the command fail with exit 3.
func printFindings(env *Env, rep agents.Report, strict bool) error {
	for _, e := range rep.Errors {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(e))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(w))
	}
	if strict && len(rep.Errors) > 0 {
		return findingError(fmt.Errorf("%d error(s) with --strict", len(rep.Errors)))
	}
	return nil
}

func newAgentsListCmd(env *Env, f *agentsFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Slugs visible from the path, with their context directories",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := agents.List(f.options(env))
			if err != nil {
				return agentsError(err)
			}
			if asJSON {
				return writeJSON(env.Stdout, struct {
					Path   string         `json:"path"`
					Agents []agents.Agent `json:"agents"`
				}{f.options(env).Path, list})
			}
			for _, a := range list {
				for _, c := range a.Contexts {
					fmt.Fprintf(env.Stdout, "%s %s\n", fsx.LineSafe(a.Slug), fsx.LineSafe(c.Dir))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newAgentsContextCmd(env *Env, f *agentsFlags) *cobra.Command {
	var slug string
	var asJSON, explain bool
	cmd := &cobra.Command{
		Use:   "context --slug S",
		Short: "The context chain of an agent, global to local",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireSlug(slug); err != nil {
				return err
			}
			ch, err := agents.Resolve(f.options(env), slug)
			if err != nil {
				return agentsError(err)
			}
			if err := printFindings(env, ch.Report(), f.strict); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(env.Stdout, ch)
			}
			if explain {
				writeExplainedChain(env.Stdout, ch)
				return nil
			}
			for _, c := range ch.Contexts {
				fmt.Fprintf(env.Stdout, "%s %s\n", fsx.LineSafe(c.Prefix), fsx.LineSafe(c.Dir))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&slug, "slug", "", "agent slug (the context directory name)")
	cmd.Flags().BoolVar(&explain, "explain", false, "show the default chain, injected roots, final chain and exclusions")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeExplainedChain(w io.Writer, ch *agents.Chain) {
	fmt.Fprintf(w, "slug: %s\npath: %s\nmode: %s\n", fsx.LineSafe(ch.Slug), fsx.LineSafe(ch.Path), ch.Mode)
	section := func(title string, cs []agents.Context) {
		fmt.Fprintf(w, "%s:\n", title)
		if len(cs) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		for _, c := range cs {
			fmt.Fprintf(w, "  %s %s (%s)\n", fsx.LineSafe(c.Prefix), fsx.LineSafe(c.Dir), c.Reason)
		}
	}
	section("default chain", ch.Default)
	section("injected", ch.Injected)
	section("final chain", ch.Contexts)
	fmt.Fprintln(w, "excluded:")
	if len(ch.Excluded) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, e := range ch.Excluded {
		fmt.Fprintf(w, "  %s: %s\n", fsx.LineSafe(e.Dir), fsx.LineSafe(e.Reason))
	}
}

func newAgentsProfileCmd(env *Env, f *agentsFlags, name string) *cobra.Command {
	var slug, kind string
	var rootChain, explain bool
	cmd := &cobra.Command{
		Use:   name + " --slug S",
		Short: "The merged agent document of a slug",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireSlug(slug); err != nil {
				return err
			}
			k, err := triad.ParseKind(kind)
			if err != nil {
				return usageError("--kind: %v", err)
			}
			ch, err := agents.Resolve(f.options(env), slug)
			if err != nil {
				return agentsError(err)
			}
			if ch.Empty() {
				return &agents.NoContextError{Slug: slug, Path: ch.Path}
			}
			p := ch.Profile(k)
			if err := printFindings(env, ch.Report(), f.strict); err != nil {
				return err
			}
			merged := p.Merged
			if rootChain {
				merged = p.WithContextChain()
			}
			if explain {
				merged = p.Explain(merged)
			}
			_, err = env.Stdout.Write(triad.Canonical(merged))
			return err
		},
	}
	def := "agent"
	if name == "plan" {
		def = "agenda"
		cmd.Short = "The merged agenda of a slug (profile --kind agenda)"
	}
	cmd.Flags().StringVar(&slug, "slug", "", "agent slug (the context directory name)")
	if name == "profile" {
		cmd.Flags().StringVar(&kind, "kind", def, "document kind: agent, agenda or agency")
	} else {
		kind = def
	}
	cmd.Flags().BoolVar(&rootChain, "root-chain", false, `add "contextChain": [{"prefix","path"}]`)
	cmd.Flags().BoolVar(&explain, "explain", false, "print {merged, provenance}: the file each value came from")
	return cmd
}
