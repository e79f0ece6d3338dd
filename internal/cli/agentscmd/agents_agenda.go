package agentscmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/triad"
)

func newAgentsAgendaCmd(env *clienv.Env, f *clienv.AgentsFlags) *cobra.Command {
	var ao agents.AgendaOptions
	var format string
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "agenda",
		Short: "The agendas of every agent under the workspace, or a day/week/month calendar",
		Long: `List the merged agenda of every agent under the workspace root of the path
(one block per agenda document, sorted by slug then path): CLIA's
"triads aggregate --kind agenda". Without --calendar: the "next" section's
items (current), the milestones by due date, and the backlog.

--calendar day|week|month|all rolls up the daily/weekly/monthly horizons
and the open milestones due today, within 7 or within 30 days (overdue
ones in every window, marked). "Today" is the UTC date of LINEAGE_NOW
(RFC 3339) when set, else of the clock.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON.Set && cmd.Flags().Changed("format") && !strings.EqualFold(format, "json") {
				return clienv.UsageError("--json and --format %s cannot be used together", format)
			}
			md, err := checkAgendaFlags(&ao, format)
			if err != nil {
				return err
			}
			now, err := env.Clock()
			if err != nil {
				return err
			}
			ao.Now = now()
			v, err := agents.CollectAgenda(f.Options(env), ao)
			if err != nil {
				return clienv.AgentsError(err)
			}
			if err := printFindings(env, v.Report, f.Strict); err != nil {
				return err
			}
			if md {
				writeAgendaMarkdown(env.Stdout, v)
				return nil
			}
			_, err = env.Stdout.Write(triad.Canonical(v.Value()))
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&ao.Calendar, "calendar", "", "calendar view: day, week, month or all")
	fl.BoolVar(&ao.ActiveOnly, "active-only", false, "only agents whose merged status is active")
	fl.BoolVar(&ao.BacklogOnly, "backlog-only", false, "only the backlog (not with --calendar)")
	fl.BoolVar(&ao.CurrentOnly, "current-only", false, `only the current ("next") items (not with --calendar)`)
	fl.StringVar(&format, "format", "json", "output format: json or md")
	asJSON.Add(cmd, "print JSON (the default; as --format json)")
	return cmd
}

// checkAgendaFlags validates the flag values; it reports whether the
// output is Markdown.
func checkAgendaFlags(ao *agents.AgendaOptions, format string) (bool, error) {
	md := false
	switch strings.ToLower(format) {
	case "json":
	case "md":
		md = true
	default:
		return false, clienv.UsageError("--format: want json or md, got %q", format)
	}
	if ao.Calendar != "" {
		c, err := agents.ParseCalendar(ao.Calendar)
		if err != nil {
			return false, clienv.UsageError("--calendar: %v", err)
		}
		ao.Calendar = c
		// Backlog items carry no date and the calendar lists no parts:
		// CLIA ignores these flags there, which hides a mistake.
		if ao.BacklogOnly {
			return false, clienv.UsageError("--backlog-only: the backlog is undated; it cannot be combined with --calendar")
		}
		if ao.CurrentOnly {
			return false, clienv.UsageError("--current-only: cannot be combined with --calendar (--calendar day lists the current items)")
		}
	}
	if ao.BacklogOnly && ao.CurrentOnly {
		return false, clienv.UsageError("--backlog-only: cannot be combined with --current-only")
	}
	return md, nil
}

// writeAgendaMarkdown prints CLIA's aggregate Markdown: a heading per
// agent, then its lists.
func writeAgendaMarkdown(w io.Writer, v *agents.AgendaView) {
	for i := range v.Agents {
		a := &v.Agents[i]
		if v.Options.Calendar == "" {
			writeAgendaHeading(w, a)
			writePlainAgenda(w, a, v.Options)
			fmt.Fprintln(w)
			continue
		}
		var b strings.Builder
		for _, win := range agents.Windows(v.Options.Calendar) {
			writeAgendaWindow(&b, a, win, v.Options)
		}
		if b.Len() > 0 {
			writeAgendaHeading(w, a)
			fmt.Fprint(w, b.String())
			fmt.Fprintln(w)
		}
	}
}

func writeAgendaHeading(w io.Writer, a *agents.AgentAgenda) {
	status := ""
	if a.Status != "" {
		status = " — " + a.Status
	}
	fmt.Fprintf(w, "## %s (%s)%s\n", a.Title, a.Slug, status)
}

func writePlainAgenda(w io.Writer, a *agents.AgentAgenda, o agents.AgendaOptions) {
	if !o.BacklogOnly {
		writeAgendaList(w, "- Current (Next):", "  ", a.Current)
	}
	if !o.BacklogOnly && !o.CurrentOnly && len(a.Milestones) > 0 {
		fmt.Fprintln(w, "- Milestones:")
		for _, m := range a.Milestones {
			fmt.Fprintf(w, "  - %s%s\n", untitled(m.Title), dueNote(m.Due, false))
		}
	}
	if !o.CurrentOnly && len(a.Backlog) > 0 {
		fmt.Fprintln(w, "- Backlog:")
		for _, b := range a.Backlog {
			slug := ""
			if s := b.Str("slug"); s != "" {
				slug = " [" + s + "]"
			}
			fmt.Fprintf(w, "  - %s%s\n", untitled(b.Str("title")), slug)
		}
	}
}

var windowLabels = map[string][2]string{
	agents.CalendarDay:   {"- Today:", "  - Milestones due (today or overdue):"},
	agents.CalendarWeek:  {"- This week:", "  - Milestones due (≤7d):"},
	agents.CalendarMonth: {"- This month:", "  - Milestones due (≤30d):"},
}

func writeAgendaWindow(w io.Writer, a *agents.AgentAgenda, win string, o agents.AgendaOptions) {
	items, ms := a.Window(win, o.Now)
	if len(items) == 0 && len(ms) == 0 {
		return
	}
	labels := windowLabels[win]
	fmt.Fprintln(w, labels[0])
	writeAgendaList(w, "", "  ", items)
	if len(ms) > 0 {
		fmt.Fprintln(w, labels[1])
		for _, m := range ms {
			fmt.Fprintf(w, "    - %s%s\n", untitled(m.Title), dueNote(m.Due, m.Overdue))
		}
	}
}

func writeAgendaList(w io.Writer, heading, indent string, items []string) {
	if len(items) == 0 {
		return
	}
	if heading != "" {
		fmt.Fprintln(w, heading)
	}
	for _, it := range items {
		fmt.Fprintf(w, "%s- %s\n", indent, it)
	}
}

func untitled(s string) string {
	if s == "" {
		return "(untitled)"
	}
	return s
}

func dueNote(due string, overdue bool) string {
	switch {
	case due == "":
		return ""
	case overdue:
		return " (due: " + due + ", overdue)"
	}
	return " (due: " + due + ")"
}
