package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

func newTractListCmd(env *Env, f *tractFlags) *cobra.Command {
	var tree bool
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "list [--tree]",
		Short: "List tracts (--tree: as a spawn tree)",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			list, err := s.repo.List(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON.set {
				return writeJSON(env.Stdout, list)
			}
			if tree {
				fmt.Fprint(env.Stdout, tract.SpawnTree(list))
				return nil
			}
			for _, t := range list {
				mark := " "
				if t.Name == s.tract {
					mark = "*"
				}
				head := "(no commits)"
				if t.Head != "" {
					head = t.Head.Short()
				}
				fmt.Fprintf(env.Stdout, "%s %s %s\n", mark, fsx.LineSafe(t.Name), head)
			}
			return nil
		}),
	}
	asJSON.add(cmd, "")
	cmd.Flags().BoolVar(&tree, "tree", false, "show spawn relations as a tree")
	return cmd
}

func newTractLogCmd(env *Env, f *tractFlags) *cobra.Command {
	var (
		o      tract.LogOptions
		graph  bool
		asJSON jsonFlag
		format string
	)
	cmd := &cobra.Command{
		Use:   "log [-n N] [--all] [--graph] [--format dot] [--type T] [--role R] [--tag NAME]",
		Short: "Show history, newest first",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			entries, err := s.repo.Log(cmd.Context(), s.tract, o)
			if err != nil {
				return tractErr(err)
			}
			switch {
			case asJSON.set:
				return writeJSON(env.Stdout, entries)
			case format == "dot":
				fmt.Fprint(env.Stdout, tract.Dot(entries))
			case graph:
				fmt.Fprint(env.Stdout, tract.Graph(lineSafeEntries(entries)))
			default:
				for _, e := range lineSafeEntries(entries) {
					fmt.Fprintln(env.Stdout, e.LogLine())
				}
			}
			return nil
		}, check(func() error {
			if format != "" && format != "text" && format != "dot" {
				return usageError("unknown --format %q (want text or dot)", format)
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
	fl.StringVar(&o.Tag, "tag", "", "only the commit this tag names")
	asJSON.add(cmd, "")
	return cmd
}

func newTractShowCmd(env *Env, f *tractFlags) *cobra.Command {
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "show REF",
		Short: "Show one commit with its content",
		Args:  exactArgs(1),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			sh, err := s.repo.Show(cmd.Context(), s.tract, args[0])
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, sh)
			}
			fmt.Fprint(env.Stdout, tractRenderShown(sh))
			return nil
		}),
	}
	asJSON.add(cmd, "")
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

func newTractCompileCmd(env *Env, f *tractFlags) *cobra.Command {
	var (
		o      tract.CompileOptions
		format string
		asJSON jsonFlag
	)
	cmd := &cobra.Command{
		Use:   "compile [--budget N] [--format openai|openai-request|anthropic|text] [--at REF] [--encoding E]",
		Short: "Compile the context an LLM receives",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			if asJSON.set {
				format = string(tract.FormatJSON)
			}
			// Only --json prints token figures: the other formats do not
			// load the tokenizer just to count a message committed by a
			// process that never loaded it (a budget counts anyway).
			o.Uncounted = tract.Format(format) != tract.FormatJSON
			if tract.Format(format) == tract.FormatOpenAI && o.Budget == 0 {
				// Nothing dropped to report: written as it is read.
				err := s.repo.CompileOpenAI(cmd.Context(), env.Stdout, s.tract, o, jsonIndent)
				if errors.Is(err, tract.ErrEmptyContext) {
					return findingError(err)
				}
				return tractErr(err)
			}
			// One compile per process: a cached view would only hold the
			// whole history in memory while the result is printed.
			res, err := s.repo.CompileCold(cmd.Context(), s.tract, o)
			if err != nil {
				return tractErr(err)
			}
			dropped := func() {
				if len(res.Dropped) == 0 || asJSON.set {
					return
				}
				var short []string
				tokens := 0
				for _, d := range res.Dropped {
					short = append(short, d.Commit.Short())
					tokens += d.Tokens
				}
				fmt.Fprintf(env.Stderr, "budget %d: dropped %d messages (%d tokens): %s\n", o.Budget, len(res.Dropped), tokens, strings.Join(short, " "))
			}
			if tract.Format(format) == tract.FormatOpenAI {
				// Shaped and written message by message: the bytes
				// writeJSON prints of the rendered list.
				if len(res.Messages) > 0 {
					dropped()
				}
				err := tract.WriteOpenAI(env.Stdout, res, jsonIndent)
				if errors.Is(err, tract.ErrEmptyContext) {
					return findingError(err)
				}
				return err
			}
			out, err := tract.Render(res, tract.Format(format))
			if errors.Is(err, tract.ErrEmptyContext) {
				return findingError(err)
			}
			if err != nil {
				return err
			}
			dropped()
			if v, ok := out.JSON(); ok {
				return writeJSON(env.Stdout, v)
			}
			fmt.Fprint(env.Stdout, out.Text)
			return nil
		}, check(func() error { return tract.Format(format).Validate() }), &o),
	}
	fl := cmd.Flags()
	budgetFlag(cmd, &o.Budget, "most tokens the context may use (drops NORMAL, then IMPORTANT, oldest first)")
	fl.StringVar(&format, "format", string(tract.FormatOpenAI), "openai (messages), openai-request (messages and tools), anthropic (system, messages, tools) or text (json: as --json)")
	fl.StringVar(&o.At, "at", "", "compile as of this ref")
	fl.StringVar(&o.Encoding, "encoding", "", "token encoding: o200k_base (default) or cl100k_base")
	asJSON.add(cmd, "print the full record: tract, head, tokens, budget, messages with provenance, dropped")
	return cmd
}

func newTractBlameCmd(env *Env, f *tractFlags) *cobra.Command {
	var o tract.CompileOptions
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "blame [--json]",
		Short: "Map every compiled message to its commit, author tract and spawn path",
		Args:  exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			entries, err := s.repo.Blame(cmd.Context(), s.tract, o)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, entries)
			}
			for _, e := range entries {
				fmt.Fprintf(env.Stdout, "%3d %s %-9s %-12s %s: %s\n", e.Index, e.Commit.Short(), e.Role, e.Tract, strings.Join(e.SpawnPath, " > "), e.Summary)
			}
			return nil
		}, &o),
	}
	cmd.Flags().StringVar(&o.At, "at", "", "blame the compile as of this ref")
	budgetFlag(cmd, &o.Budget, "blame the compile under this budget")
	asJSON.add(cmd, "")
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
