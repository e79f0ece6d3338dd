package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentlineage/lineage/instructions"
)

// printExplanation renders explain's text output.
func printExplanation(w io.Writer, e instructions.Explanation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "root: %s (%s)\n", e.Root, e.RootSource)
	fmt.Fprintf(&b, "markers: %s\n", instructions.MarkersJSON(e.Markers))
	fmt.Fprintf(&b, "cwd: %s\n", e.Cwd)
	if e.Target != "" {
		fmt.Fprintf(&b, "target: %s\n", e.Target)
	}
	if !e.Enabled {
		b.WriteString("instructions are disabled: nothing is loaded\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, d := range e.Dirs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Status, d.Dir, dirDetail(d))
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
		parts = append(parts, d.Path)
	}
	switch d.Status {
	case instructions.StatusLoaded, instructions.StatusMaxBytes:
		parts = append(parts, "("+strconv.Itoa(d.ContentBytes)+" bytes)")
	}
	if d.Detail != "" {
		parts = append(parts, "("+d.Detail+")")
	}
	return strings.Join(parts, " ")
}
