package sessionscmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/cli/tracttext"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// listFlags filter sessions.
type listFlags struct {
	from    string
	project string
}

func (f *listFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.from, "from", "", "only this harness's sessions (claude, codex, gemini)")
	cmd.Flags().StringVar(&f.project, "project", "", "only sessions whose working directory is this folder or below it")
}

func (f *listFlags) options() (sessions.ListOptions, error) {
	if f.from != "" {
		if _, err := parseFrom(f.from); err != nil {
			return sessions.ListOptions{}, err
		}
	}
	return sessions.ListOptions{Harness: sessions.Harness(f.from), Cwd: f.project}, nil
}

func listCmd(env *clienv.Env) *cobra.Command {
	var (
		sf     storeFlags
		lf     listFlags
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "list [--from H] [--project DIR] [--json]",
		Short: "List imported sessions, newest first",
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := lf.options()
			if err != nil {
				return err
			}
			repo, done, err := sf.open(cmd.Context(), env, false)
			if err != nil {
				return err
			}
			defer done()
			list := []sessions.Info{}
			if repo != nil {
				if list, err = sessions.List(cmd.Context(), repo, o); err != nil {
					return clienv.TractErr(err)
				}
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, list)
			}
			writeList(env.Stdout, list)
			return nil
		},
	}
	sf.add(cmd)
	lf.add(cmd)
	asJSON.Add(cmd, "")
	return cmd
}

func writeList(w io.Writer, list []sessions.Info) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no sessions imported (lineage sessions import)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HARNESS\tSESSION\tSTARTED\tTOKENS\tPROJECT\tTITLE")
	for _, i := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", i.Harness, short(i.Session), when(i.Started), i.Tokens, i.Cwd, clip(i.Label(), 60))
	}
	tw.Flush()
}

func short(id string) string {
	if len(id) > 8 && !strings.HasPrefix(id, "agent-") {
		return id[:8]
	}
	return id
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func showCmd(env *clienv.Env) *cobra.Command {
	var (
		sf     storeFlags
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "show SESSION [--json]",
		Short: "Show one session: its harness, project, model, tokens and branches",
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, info, done, err := sf.session(cmd.Context(), env, args[0])
			if err != nil {
				return err
			}
			defer done()
			branches, err := repo.Branches(cmd.Context(), info.Tract)
			if err != nil {
				return clienv.TractErr(err)
			}
			out := struct {
				sessions.Info
				Branches []tract.Branch `json:"branches"`
			}{info, branches}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, out)
			}
			writeShow(env.Stdout, info, branches)
			return nil
		},
	}
	sf.add(cmd)
	asJSON.Add(cmd, "")
	return cmd
}

func writeShow(w io.Writer, i sessions.Info, branches []tract.Branch) {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	row("session", string(i.Harness)+" "+i.Session)
	row("tract", i.Tract)
	row("title", i.Title)
	row("first prompt", clip(i.FirstPrompt, 100))
	row("project", i.Cwd)
	row("git branch", i.GitBranch)
	row("model", i.Model)
	row("version", i.Version)
	row("started", when(i.Started))
	row("tokens", fmt.Sprint(i.Tokens))
	row("records", fmt.Sprint(i.Records))
	if o := i.Origin; o != nil {
		row("origin", string(o.Kind)+" of "+sessions.TractName(o.Harness, o.Session))
	}
	var names []string
	for _, b := range branches {
		names = append(names, b.Name)
	}
	row("branches", strings.Join(names, " "))
	tw.Flush()
}

func logCmd(env *clienv.Env) *cobra.Command {
	var (
		sf     storeFlags
		n      int
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "log SESSION [-n N] [--json]",
		Short: "The session's history on its main line, newest first",
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, info, done, err := sf.session(cmd.Context(), env, args[0])
			if err != nil {
				return err
			}
			defer done()
			entries, err := repo.Log(cmd.Context(), info.Tract, tract.LogOptions{N: n})
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, entries)
			}
			for _, e := range entries {
				fmt.Fprintln(env.Stdout, tracttext.LogLine(e))
			}
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().IntVarP(&n, "n", "n", 0, "show the newest N entries (0: all)")
	asJSON.Add(cmd, "")
	return cmd
}

func findCmd(env *clienv.Env) *cobra.Command {
	var (
		sf     storeFlags
		lf     listFlags
		limit  int
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "find QUERY... [--from H] [--project DIR] [--limit N] [--json]",
		Short: "Search every imported session's text, best matches first",
		Args:  clienv.MinArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := lf.options()
			if err != nil {
				return err
			}
			if limit < 0 {
				return clienv.UsageError("--limit must be 0 or more")
			}
			repo, done, err := sf.open(cmd.Context(), env, false)
			if err != nil {
				return err
			}
			defer done()
			hits := []sessions.Hit{}
			if repo != nil {
				hits, err = sessions.Find(cmd.Context(), repo, sessions.FindOptions{Text: strings.Join(args, " "), ListOptions: o, Limit: limit})
				if err != nil {
					return clienv.TractErr(err)
				}
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, hits)
			}
			for _, h := range hits {
				fmt.Fprintf(env.Stdout, "%s %s %s %s %s/%s: %s\n", h.Session.Harness, short(h.Session.Session), when(h.Time), short(h.Key), h.Type, h.Role, clip(h.Text, 72))
			}
			if len(hits) == 0 {
				return clienv.SilentExit(clienv.ExitFailure)
			}
			return nil
		},
	}
	sf.add(cmd)
	lf.add(cmd)
	cmd.Flags().IntVar(&limit, "limit", 20, "show the best N hits (0: all)")
	asJSON.Add(cmd, "")
	return cmd
}
