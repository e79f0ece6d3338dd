package agentscmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

func newAgentsListCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Slugs visible from the path, with their context directories",
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := agents.List(f.Options(env))
			if err != nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, struct {
					Path   string         `json:"path"`
					Agents []agents.Agent `json:"agents"`
				}{f.Options(env).Path, list})
			}
			for _, a := range list {
				for _, c := range a.Contexts {
					fmt.Fprintf(env.Stdout, "%s %s\n", fsx.LineSafe(a.Slug), fsx.LineSafe(c.Dir))
				}
			}
			return nil
		},
	}
	asJSON.Add(cmd, "")
	return cmd
}

func newAgentsContextCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var slug string
	var explain bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "context (--slug S | S)",
		Short: "The context chain of an agent, global to local",
		Args:  clienv.SlugArg(&slug),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(slug); err != nil {
				return err
			}
			ch, err := agents.Resolve(f.Options(env), slug)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if ch.Empty() {
				// The explanation says why nothing was found (the
				// excluded candidates); the command still fails.
				if explain {
					writeExplainedChain(env.Stdout, ch)
				}
				return &agents.NoContextError{Slug: slug, Path: ch.Path}
			}
			if err := printFindings(env, ch.Report(), f.Strict); err != nil {
				return err
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, ch)
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
	asJSON.Add(cmd, "")
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

func newAgentsProfileCmd(env *clienv.Env, f *clienv.AgentsFlags, name string) *cobra.Command {
	var slug, kind string
	var rootChain, explain, observance, prompt bool
	cmd := &cobra.Command{
		Use:   name + " (--slug S | S)",
		Short: "The merged agent document of a slug",
		Args:  clienv.SlugArg(&slug),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(slug); err != nil {
				return err
			}
			k, err := triad.ParseKind(kind)
			if err != nil {
				return clienv.UsageError("--kind: %v", err)
			}
			ch, err := agents.Resolve(f.Options(env), slug)
			if err != nil {
				return clienv.AgentsError(err)
			}
			p, err := ch.RequireProfile(k)
			if err != nil {
				return err
			}
			if err := printFindings(env, ch.Report(), f.Strict); err != nil {
				return err
			}
			switch {
			case observance:
				// CLIA's --observance-date: origin.firstObservedAt only,
				// nothing when it is not set.
				if ts := p.Merged.Get("origin").Get("firstObservedAt"); ts != nil && ts.Kind == triad.String && ts.Text != "" {
					fmt.Fprintln(env.Stdout, ts.Text)
				}
				return nil
			case prompt:
				if k != triad.Agent {
					return clienv.UsageError("--prompt needs --kind agent")
				}
				text, warnings := compose.ProfilePrompt(slug, p, nil)
				for _, w := range warnings {
					fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(w))
				}
				if text != "" {
					fmt.Fprintln(env.Stdout, text)
				}
				return nil
			}
			_, err = env.Stdout.Write(triad.Canonical(p.Document(agents.DocumentOptions{ContextChain: rootChain, Explain: explain})))
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
	cmd.Flags().BoolVar(&observance, "observance-date", false, "print only origin.firstObservedAt (the observance date), as CLIA does")
	if name == "profile" {
		cmd.Flags().BoolVar(&prompt, "prompt", false, "print the profile block lineage context puts in a prompt: the instructing fields, then the persona and system-instructions texts with the file each came from")
	}
	// The document is JSON already; --json is accepted like on every other
	// read command, so scripts can pass it everywhere.
	var asJSON clienv.JSONFlag
	asJSON.Add(cmd, "print JSON (the default and only output of "+name+")")
	return cmd
}
