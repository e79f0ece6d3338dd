package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentlineage/lineage/instructions"
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
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Status, fsx.LineSafe(d.Dir), dirDetail(d))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
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
		parts = append(parts, "("+strconv.Itoa(d.ContentBytes)+" bytes)")
	}
	if d.Detail != "" {
		parts = append(parts, "("+fsx.LineSafe(d.Detail)+")")
	}
	return strings.Join(parts, " ")
}
