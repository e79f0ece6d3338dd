package tractcmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/cli/tracttext"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

func newTractDiffCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	var encoding string
	cmd := &cobra.Command{
		Use:   "diff A [B]",
		Short: "What changed between the compiled contexts at two refs (B defaults to HEAD)",
		Long: `diff compiles the tract at A and at B (default HEAD) and lists, in B's order,
the messages added (+), removed (-), edited (~, old then new text) and
re-prioritised (!).`,
		Args: clienv.RangeArgs(1, 2),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			b := tract.HeadRef
			if len(args) == 2 {
				b = args[1]
			}
			d, err := s.Repo.Diff(cmd.Context(), s.Tract, args[0], b, encoding)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, d)
			}
			fmt.Fprintf(env.Stdout, "--- %s (%s): %d messages, %d tokens\n", fsx.LineSafe(d.From.Ref), d.From.Head.Short(), d.From.Messages, d.From.Tokens)
			fmt.Fprintf(env.Stdout, "+++ %s (%s): %d messages, %d tokens\n", fsx.LineSafe(d.To.Ref), d.To.Head.Short(), d.To.Messages, d.To.Tokens)
			for _, c := range d.Changes {
				line := func(mark, text string) {
					fmt.Fprintf(env.Stdout, "%s%s %s: %s\n", mark, c.Commit.Short(), c.Role, oneLine(text))
				}
				switch c.Kind {
				case "added":
					line("+", c.After)
				case "removed":
					line("-", c.Before)
				case "edited":
					line("~", c.Before)
					line("~", c.After)
				case "reprioritized":
					fmt.Fprintf(env.Stdout, "!%s %s: %s → %s\n", c.Commit.Short(), c.Role, c.PriorityBefore, c.PriorityAfter)
				}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&encoding, "encoding", "", "token encoding (o200k_base or cl100k_base)")
	asJSON.Add(cmd, "")
	return cmd
}

// oneLine keeps a message on one line of a diff.
func oneLine(s string) string {
	return fsx.LineSafe(strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ "))
}

func newTractFindCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var (
		o      tract.FindOptions
		typ    string
		meta   []string
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "find [TEXT] [--type T] [--role R] [--tag NAME] [--meta K=V]... [--all-tracts] [-n N]",
		Short: "Find commits by words, type, role, tag or metadata",
		Long: `find lists the commits whose content holds every word of TEXT (words are
runs of letters and digits, matched whole and case-insensitively through the
store's full-text index) and that pass every filter given, oldest first.
It searches the tract's own commits on any branch; --all-tracts searches
every tract. --tag NAME keeps the commit the tag names; --meta K=V keeps
commits whose metadata (commit --meta) holds V under key K (a string, or
the JSON text of a number, true, false or null).`,
		Args: clienv.RangeArgs(0, 1),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			if len(args) == 1 {
				o.Text = args[0]
			}
			o.Type = tract.Type(typ)
			for _, kv := range meta {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return clienv.UsageError("--meta %q: want KEY=VALUE", kv)
				}
				if o.Meta == nil {
					o.Meta = map[string]string{}
				}
				o.Meta[k] = v
			}
			if err := o.Validate(); err != nil {
				return clienv.OptionError(err)
			}
			found, err := s.Repo.Find(cmd.Context(), s.Tract, o)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, found)
			}
			for _, fd := range found {
				fmt.Fprintln(env.Stdout, tractFoundLine(fd))
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&typ, "type", "", "only this content type")
	fl.StringVar(&o.Role, "role", "", "only this role")
	fl.StringVar(&o.Tag, "tag", "", "only the commit this tag names (a pattern with *, ? or [...]: the commits of every tag it matches)")
	fl.StringArrayVar(&meta, "meta", nil, "only commits whose metadata holds VALUE under KEY (KEY=VALUE, repeatable)")
	fl.BoolVar(&o.AllTracts, "all-tracts", false, "search every tract, not only this one's commits")
	fl.IntVarP(&o.Limit, "limit", "n", 0, "at most N results (0: all)")
	asJSON.Add(cmd, "")
	return cmd
}

// tractFoundLine is "HASH8 TRACT TYPE/ROLE: first line of the text".
func tractFoundLine(fd tract.Found) string {
	kind := string(fd.Content.Type)
	if fd.Content.Role != "" {
		kind += "/" + fd.Content.Role
	}
	text, _ := fd.Content.Headline()
	if r := []rune(text); len(r) > 72 {
		text = string(r[:72]) + "…"
	}
	return fmt.Sprintf("%s %s %s: %s", fd.Commit.Hash.Short(), fd.Tract, kind, text)
}

func newTractLogCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var (
		o      tract.LogOptions
		graph  bool
		asJSON clienv.JSONFlag
		format string
	)
	cmd := &cobra.Command{
		Use:   "log [-n N] [--all] [--graph] [--format dot] [--type T] [--role R] [--tag NAME] [--operation OP]",
		Short: "Show history, newest first",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			entries, err := s.Repo.Log(cmd.Context(), s.Tract, o)
			if err != nil {
				return clienv.TractErr(err)
			}
			switch {
			case asJSON.Set:
				return clienv.WriteJSON(env.Stdout, entries)
			case format == "dot":
				fmt.Fprint(env.Stdout, tracttext.Dot(entries))
			case graph:
				fmt.Fprint(env.Stdout, tracttext.Graph(lineSafeEntries(entries)))
			default:
				for _, e := range lineSafeEntries(entries) {
					fmt.Fprintln(env.Stdout, tracttext.LogLine(e))
				}
			}
			return nil
		}, clienv.Check(func() error {
			if format != "" && format != "text" && format != "dot" {
				return clienv.UsageError("unknown --format %q (want text or dot)", format)
			}
			return nil
		}), &o),
	}
	fl := cmd.Flags()
	fl.IntVarP(&o.N, "max-count", "n", 0, "show at most N commits")
	fl.BoolVar(&o.All, "all", false, "show every branch's history")
	fl.BoolVar(&graph, "graph", false, "draw the DAG")
	fl.StringVar(&format, "format", "", "text (default) or dot (Graphviz)")
	fl.StringVar((*string)(&o.Type), "type", "", "only commits of this content type")
	fl.StringVar(&o.Role, "role", "", "only commits of this role")
	fl.StringVar(&o.Tag, "tag", "", "only the commit this tag names (a pattern with *, ? or [...]: the commits of every tag it matches)")
	fl.StringVar((*string)(&o.Operation), "operation", "", "only commits of this operation: append, edit, merge or compress")
	asJSON.Add(cmd, "")
	return cmd
}

func newTractShowCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "show REF",
		Short: "Show one commit with its content",
		Args:  clienv.ExactArgs(1),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, args []string, s *clienv.TractSession) error {
			sh, err := s.Repo.Show(cmd.Context(), s.Tract, args[0])
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				// The nested commit names its tract like every other output.
				sh.Commit.Tract = sh.Tract
				return clienv.WriteJSON(env.Stdout, sh)
			}
			fmt.Fprint(env.Stdout, tractRenderShown(sh))
			return nil
		}),
	}
	asJSON.Add(cmd, "")
	return cmd
}

func tractRenderShown(sh tract.Shown) string {
	var b strings.Builder
	c := sh.Commit
	fmt.Fprintf(&b, "commit %s\n", c.Hash)
	fmt.Fprintf(&b, "tract %s\n", sh.Tract)
	fmt.Fprintf(&b, "operation %s\n", c.Operation)
	for i, p := range c.Parents {
		fmt.Fprintf(&b, "parent %d %s\n", i, p)
	}
	if c.EditTarget != "" {
		fmt.Fprintf(&b, "edits %s\n", c.EditTarget)
	}
	fmt.Fprintf(&b, "time %s\n", c.Time.UTC().Format(time.RFC3339Nano))
	if c.Message != "" {
		fmt.Fprintf(&b, "message %s\n", c.Message)
	}
	if len(c.Meta) > 0 {
		fmt.Fprintf(&b, "meta %s\n", c.Meta)
	}
	for _, a := range sh.Annotations {
		fmt.Fprintf(&b, "annotation %s by %s", a.Priority, a.Viewer)
		if a.Reason != "" {
			fmt.Fprintf(&b, ": %s", a.Reason)
		}
		b.WriteString("\n")
	}
	if sh.Content != nil {
		fmt.Fprintf(&b, "blob %s (%d bytes)\n", sh.Blob.Hash, sh.Blob.Size)
		fmt.Fprintf(&b, "type %s\nrole %s\n", sh.Content.Type, sh.Content.Role)
		if sh.Content.Name != "" {
			fmt.Fprintf(&b, "name %s\n", sh.Content.Name)
		}
		if sh.Content.ToolCallID != "" {
			fmt.Fprintf(&b, "tool-call-id %s\n", sh.Content.ToolCallID)
		}
		for _, tc := range sh.Content.ToolCalls {
			fmt.Fprintf(&b, "tool-call %s %s %s\n", tc.ID, tc.Name, tc.Arguments)
		}
		for _, tool := range sh.Content.Tools {
			fmt.Fprintf(&b, "tool %s %s\n", tool.Name, tool.Parameters)
		}
		fmt.Fprintf(&b, "\n%s\n", sh.Content.Text)
	}
	return b.String()
}

func newTractBlameCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var o tract.CompileOptions
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "blame [--json]",
		Short: "Map every compiled message to its commit, author tract and spawn path",
		Args:  clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			entries, err := s.Repo.Blame(cmd.Context(), s.Tract, o)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, entries)
			}
			for _, e := range entries {
				fmt.Fprintf(env.Stdout, "%3d %s %-9s %-12s %s: %s\n", e.Index, e.Commit.Short(), e.Role, e.Tract, strings.Join(e.SpawnPath, " > "), e.Summary)
			}
			return nil
		}, &o),
	}
	cmd.Flags().StringVar(&o.At, "at", "", "blame the compile as of this ref")
	clienv.BudgetFlag(cmd, &o.Budget, "blame the compile under this budget")
	asJSON.Add(cmd, "")
	return cmd
}

// lineSafeEntries quotes the names, refs, messages and summaries that hold
// a character that is not printable, so each entry stays on its line.
func lineSafeEntries(entries []tract.LogEntry) []tract.LogEntry {
	out := make([]tract.LogEntry, len(entries))
	for i, e := range entries {
		e.Tract, e.Message, e.Summary = fsx.LineSafe(e.Tract), fsx.LineSafe(e.Message), fsx.LineSafe(e.Summary)
		e.Refs = make([]string, len(e.Refs))
		for j, r := range entries[i].Refs {
			e.Refs[j] = fsx.LineSafe(r)
		}
		out[i] = e
	}
	return out
}
