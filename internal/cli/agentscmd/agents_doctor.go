package agentscmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

func writeDiagnosis(w io.Writer, d agents.Diagnosis) {
	fmt.Fprintf(w, "slug: %s\npath: %s\nstatus: %s\n", fsx.LineSafe(d.Slug), fsx.LineSafe(d.Path), d.Status)
	for _, e := range d.Errors {
		fmt.Fprintf(w, "error: %s\n", fsx.LineSafe(e))
	}
	for _, x := range d.Warnings {
		fmt.Fprintf(w, "warning: %s\n", fsx.LineSafe(x))
	}
	for _, x := range d.Info {
		fmt.Fprintf(w, "info: %s\n", fsx.LineSafe(x))
	}
}

func strictStatus(strict bool, ds []agents.Diagnosis) error {
	if !strict {
		return nil
	}
	bad := 0
	for _, d := range ds {
		if d.Status != "ok" {
			bad++
		}
	}
	if bad > 0 {
		return clienv.FindingError(fmt.Errorf("%d report(s) not ok with --strict", bad))
	}
	return nil
}

func newAgentsDoctorCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var slug string
	var schema, clia bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "doctor (--slug S | S)",
		Short: "Check an agent's documents, inherits, root chain and write target",
		Long: `Check an agent's documents, inherits, root chain and write target.

Status is "error" when there are errors, "degraded" with warnings only, else
"ok". With --strict any status but ok exits 3.`,
		Args: clienv.SlugArg(&slug),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clienv.RequireSlug(slug); err != nil {
				return err
			}
			opts := f.Options(env)
			opts.CheckSchema, opts.CheckCLIA = schema, clia
			d, err := agents.Doctor(opts, slug)
			var nc *agents.NoContextError
			if err != nil && !errors.As(err, &nc) {
				return clienv.AgentsError(err)
			}
			// No context for the slug: the report says so, and the
			// command fails as every read of an unknown slug does.
			var werr error
			if asJSON.Set {
				werr = clienv.WriteJSON(env.Stdout, d)
			} else {
				writeDiagnosis(env.Stdout, d)
			}
			if nc != nil {
				return nc
			}
			if werr != nil {
				return werr
			}
			return strictStatus(f.Strict, []agents.Diagnosis{d})
		},
	}
	cmd.Flags().StringVar(&slug, "slug", "", "agent slug (the context directory name)")
	cmd.Flags().BoolVar(&schema, "schema", false, "also validate every document against CLIA's published JSON Schemas")
	cmd.Flags().BoolVar(&clia, "clia", false, "also run CLIA's doctor checks: all three documents, contribution types, emoji tags")
	asJSON.Add(cmd, "")
	return cmd
}

func newAgentsLintCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var schema, clia bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Run doctor for every agent under the workspace root",
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := f.Options(env)
			opts.CheckSchema, opts.CheckCLIA = schema, clia
			ds, err := agents.Lint(opts)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if asJSON.Set {
				err = clienv.WriteJSON(env.Stdout, ds)
			} else {
				for i, d := range ds {
					if i > 0 {
						fmt.Fprintln(env.Stdout)
					}
					writeDiagnosis(env.Stdout, d)
				}
			}
			if err != nil {
				return err
			}
			return strictStatus(f.Strict, ds)
		},
	}
	cmd.Flags().BoolVar(&schema, "schema", false, "also validate every document against CLIA's published JSON Schemas")
	cmd.Flags().BoolVar(&clia, "clia", false, "also run CLIA's doctor checks: all three documents, contribution types, emoji tags")
	asJSON.Add(cmd, "")
	return cmd
}
