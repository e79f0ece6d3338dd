package instructionscmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

// printExplanation renders explain's text output.
func printExplanation(w io.Writer, e instructions.Explanation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "root: %s (%s)\n", fsx.LineSafe(e.Root), fsx.LineSafe(e.RootSource))
	fmt.Fprintf(&b, "markers: %s\n", instructions.MarkersJSON(e.Markers))
	fmt.Fprintf(&b, "cwd: %s\n", fsx.LineSafe(e.Cwd))
	if e.Target != "" {
		fmt.Fprintf(&b, "target: %s\n", fsx.LineSafe(e.Target))
	}
	if !e.Enabled {
		b.WriteString("instructions are disabled: nothing is loaded\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, d := range e.Dirs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Status, explainWhere(d), dirDetail(d))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if e.TokenEncoding != "" && e.Enabled {
		fmt.Fprintf(&b, "total: %d tokens (%s)\n", e.Tokens, e.TokenEncoding)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

// explainWhere is explain's second column: the directory of a directory's
// own file, "global" or "rule", or "@path" indented by its import depth.
func explainWhere(d instructions.ChainDir) string {
	switch d.Kind {
	case instructions.KindImport:
		return strings.Repeat("  ", d.Depth) + "@" + fsx.LineSafe(d.Import)
	case instructions.KindGlobal, instructions.KindRule:
		return d.Kind
	}
	return fsx.LineSafe(d.Dir)
}

func dirDetail(d instructions.ChainDir) string {
	var parts []string
	if d.Path != "" {
		parts = append(parts, fsx.LineSafe(d.Path))
	}
	switch d.Status {
	case instructions.StatusLoaded, instructions.StatusMaxBytes:
		if d.ContentBytes == 0 && d.Status == instructions.StatusMaxBytes {
			break // not read to its end: the detail says why
		}
		if d.Status == instructions.StatusLoaded && d.Tokens > 0 {
			parts = append(parts, "("+strconv.Itoa(d.ContentBytes)+" bytes, "+strconv.Itoa(d.Tokens)+" tokens)")
			break
		}
		parts = append(parts, "("+strconv.Itoa(d.ContentBytes)+" bytes)")
	}
	if d.Detail != "" {
		parts = append(parts, "("+fsx.LineSafe(d.Detail)+")")
	}
	return strings.Join(parts, " ")
}

func newInstructionsExplainCmd(env *clienv.Env, f *clienv.InstructionsFlags) *cobra.Command {
	var strict bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "explain [TARGET]",
		Short: "Show how the root was chosen and what became of each directory's AGENTS.md",
		Long: `Show the root, how it was chosen, and every directory of the chain from the root
to the working directory (or to TARGET's directory) with its status: loaded,
missing, skipped:max-files, skipped:max-bytes, not-regular-file, unreadable,
duplicate, empty or outside-root.

With --strict the command exits 3 when a file was skipped by a cap or was
unreadable.`,
		Args: clienv.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.Options(cmd, env)
			if err != nil {
				return err
			}
			target := ""
			if len(args) == 1 {
				if target = args[0]; target == "" {
					return clienv.UsageError("TARGET must not be empty")
				}
			}
			opts.Tokens = instructions.DefaultTokenCounter()
			e := instructions.Explain(opts, target)
			clienv.InstructionsWarn(env, e.Warnings)
			if asJSON.Set {
				err = clienv.WriteJSON(env.Stdout, e)
			} else {
				err = printExplanation(env.Stdout, e)
			}
			if err != nil {
				return err
			}
			if n := len(e.Findings()); strict && n > 0 {
				return clienv.FindingError(fmt.Errorf("strict: %d file(s) skipped by a cap or unreadable", n))
			}
			return nil
		},
	}
	asJSON.Add(cmd, "")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 3 when a file was skipped by a cap or unreadable")
	return cmd
}
