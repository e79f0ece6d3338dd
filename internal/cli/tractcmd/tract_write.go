package tractcmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/spf13/cobra"
)

func newTractCommitCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var (
		typ, role, name, text, file, message, toolCallID, toolCalls, meta string
		pin, skip                                                         bool
		asJSON                                                            clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "commit [--type T] [--role R] [--name N] [--text S | --file F | stdin] [--meta JSON]",
		Short: "Append a commit to the current branch; prints its hash",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				// git commit's habit: the text as an argument.
				return clienv.UsageError("lineage tract commit takes no argument: give the text with --text (lineage tract commit --text %s), --file F or on stdin", shellWord(strings.Join(args, " ")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pin && skip {
				return clienv.UsageError("give --pin or --skip, not both")
			}
			body, err := tractReadInput(env, text, cmd.Flags().Changed("text"), file, toolCalls != "")
			if err != nil {
				return err
			}
			c, err := withTools(tract.Content{Type: tract.Type(typ), Role: role, Name: name, Text: body, ToolCallID: toolCallID}, toolCalls)
			if err != nil {
				return err
			}
			req := tract.CommitRequest{Content: c, Message: message}
			if cmd.Flags().Changed("meta") {
				req.Meta = []byte(meta)
			}
			if pin {
				req.Priority = tract.Pinned
			} else if skip {
				req.Priority = tract.Skip
			}
			s, err := f.Session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			commit, err := s.Repo.Commit(cmd.Context(), s.Tract, req)
			if err != nil {
				return clienv.TractErr(err)
			}
			return printCommitted(cmd, env, s, commit, asJSON.Set)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&typ, "type", string(tract.TypeMessage), "content type: instruction, message, tool_call, tool_result, reasoning, artifact, metadata, tools (the text: a JSON array of tool definitions)")
	fl.StringVar(&role, "role", "", "role (default: the type's: user for messages)")
	fl.StringVar(&name, "name", "", "name (of an instruction: only the latest of a name is compiled)")
	fl.StringVar(&text, "text", "", "content text")
	fl.StringVar(&file, "file", "", "read the content text from a file ('-' for stdin)")
	fl.StringVar(&message, "message", "", "commit message")
	fl.StringVar(&toolCallID, "tool-call-id", "", "the tool call a tool_result answers")
	fl.StringVar(&toolCalls, "tool-calls", "", `tool calls of a tool_call, JSON: [{"id","name","arguments"}]`)
	fl.StringVar(&meta, "meta", "", `metadata, a JSON object kept with the commit (hashed, searchable with find --meta, never compiled)`)
	fl.BoolVar(&pin, "pin", false, "annotate the commit PINNED (never dropped by a budget)")
	fl.BoolVar(&skip, "skip", false, "annotate the commit SKIP (not compiled)")
	asJSON.Add(cmd, "print the commit as JSON")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if strings.Contains(err.Error(), "unknown shorthand flag: 'm'") {
			err = fmt.Errorf("%w (the text is --text S; --message M is the commit's own message)", err)
		}
		return clienv.FlagError(c, err)
	})
	return cmd
}

// withTools is c with what its text and --tool-calls (toolCalls) hold
// parsed: a tools commit's definitions (its text, then empty) and a tool
// call's calls.
func withTools(c tract.Content, toolCalls string) (tract.Content, error) {
	if c.Type == tract.TypeTools {
		tools, err := tract.ParseTools([]byte(c.Text))
		if err != nil {
			return c, clienv.TractErr(err)
		}
		c.Text, c.Tools = "", tools
	}
	if toolCalls != "" {
		calls, err := wire.ParseToolCalls([]byte(toolCalls))
		if err != nil {
			return c, clienv.UsageError("--tool-calls: %v", err)
		}
		c.ToolCalls = calls
	}
	return c, nil
}

// shellWord is s as one word of a POSIX shell command line.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@/+:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(fsx.LineSafe(s), "'", `'\''`) + "'"
}

// printCommitted prints a new commit (its hash, or --json with the
// pressure), warning when the context nears its budget. The pressure costs
// a compile: without a budget only --json (which reports the tokens) pays
// for it.
func printCommitted(cmd *cobra.Command, env *clienv.Env, s *clienv.TractSession, commit tract.Commit, asJSON bool) error {
	var p *tract.Pressure
	if cfg, err := s.Repo.Config(cmd.Context(), s.Tract); err == nil && (cfg.Budget > 0 || asJSON) {
		if got, err := s.Repo.Pressure(cmd.Context(), s.Tract); err == nil {
			p = &got
		} else {
			fmt.Fprintf(env.Stderr, "lineage: committed %s; the context's tokens are unknown: %v\n", commit.Hash.Short(), err)
		}
	}
	if p != nil && p.Warn {
		warnPressure(env, *p)
	}
	if asJSON {
		// Named like every other output, not by the tract's id.
		commit.Tract = s.Tract
		if p == nil {
			return clienv.WriteJSON(env.Stdout, commit)
		}
		return clienv.WriteJSON(env.Stdout, tract.CommitResult{Commit: commit, Pressure: *p})
	}
	fmt.Fprintln(env.Stdout, commit.Hash)
	return nil
}

func newTractEditCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var text, file, message string
	var history bool
	var restore int
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "edit REF (--text S | --file F | --history | --restore N)",
		Short: "Record an edit replacing a commit's text; prints the edit's hash (--history: its versions; --restore N: bring one back)",
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			given := 0
			for _, fl := range []string{"text", "file", "history", "restore"} {
				if cmd.Flags().Changed(fl) {
					given++
				}
			}
			if given != 1 {
				return clienv.UsageError("give one of --text, --file, --history or --restore")
			}
			if history {
				return tractEditHistory(cmd, env, f, args[0], asJSON.Set)
			}
			var body string
			if !cmd.Flags().Changed("restore") {
				var err error
				if body, err = tractReadInput(env, text, cmd.Flags().Changed("text"), file, false); err != nil {
					return err
				}
			}
			s, err := f.Session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			var c tract.Commit
			if cmd.Flags().Changed("restore") {
				c, err = s.Repo.RestoreEdit(cmd.Context(), s.Tract, args[0], restore, message)
			} else {
				c, err = s.Repo.Edit(cmd.Context(), s.Tract, args[0], body, message)
			}
			if err != nil {
				return clienv.TractErr(err)
			}
			// An edit is a commit: the same pressure report and warning.
			return printCommitted(cmd, env, s, c, asJSON.Set)
		},
	}
	cmd.Flags().StringVar(&text, "text", "", "new text")
	cmd.Flags().StringVar(&file, "file", "", "read the new text from a file ('-' for stdin)")
	cmd.Flags().StringVar(&message, "message", "", "commit message")
	cmd.Flags().BoolVar(&history, "history", false, "list the versions of REF's content in the current history (* marks the one compiled)")
	cmd.Flags().IntVar(&restore, "restore", 0, "record an edit bringing back version N of REF's content (0: the original)")
	asJSON.Add(cmd, "print the edit commit (or the history) as JSON")
	return cmd
}

// tractEditHistory prints edit --history: every version of a commit's
// content, oldest first, the compiled one marked.
func tractEditHistory(cmd *cobra.Command, env *clienv.Env, f *clienv.TractFlags, ref string, asJSON bool) error {
	s, err := f.ReadSession(cmd, env)
	if err != nil {
		return err
	}
	defer s.Close()
	h, err := s.Repo.EditHistory(cmd.Context(), s.Tract, ref)
	if err != nil {
		return clienv.TractErr(err)
	}
	if asJSON {
		return clienv.WriteJSON(env.Stdout, h)
	}
	for _, v := range h.Versions {
		mark := " "
		if v.Version == h.Current {
			mark = "*"
		}
		kind := "original"
		if v.Operation == tract.OpEdit {
			kind = "edit"
		}
		fmt.Fprintf(env.Stdout, "%s %d %s %-8s %s: %s\n", mark, v.Version, v.Commit.Short(), kind,
			v.Time.UTC().Format(time.RFC3339), fsx.LineSafe(firstLine(v.Content.Text)))
	}
	return nil
}

func newTractAnnotateCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var reason string
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "annotate REF skip|normal|important|pinned [--reason R]",
		Short: "Set the current tract's priority for a commit (any tract's)",
		Args:  clienv.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := tract.ParsePriority(args[1])
			if err != nil {
				return clienv.TractErr(err)
			}
			s, err := f.Session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.Repo.Annotate(cmd.Context(), s.Tract, args[0], p, reason)
			if err != nil {
				return clienv.TractErr(err)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, struct {
					Commit   tract.Hash     `json:"commit"`
					Tract    string         `json:"tract"`
					Priority tract.Priority `json:"priority"`
					Reason   string         `json:"reason,omitempty"`
					Time     time.Time      `json:"time"`
				}{a.Commit, s.Tract, a.Priority, a.Reason, a.Time})
			}
			fmt.Fprintf(env.Stdout, "%s is %s for tract %s\n", a.Commit.Short(), a.Priority, s.Tract)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why")
	asJSON.Add(cmd, "print the annotation as JSON")
	return cmd
}

// warnAfter measures a tract's context after a write that changed it
// (import, merge-from) and warns like commit does at or above warn-at.
// Without a stored budget it compiles nothing.
func warnAfter(cmd *cobra.Command, env *clienv.Env, s *clienv.TractSession, tractName string) {
	cfg, err := s.Repo.Config(cmd.Context(), tractName)
	if err != nil || cfg.Budget <= 0 {
		return
	}
	p, err := s.Repo.Pressure(cmd.Context(), tractName)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lineage: the context's tokens of tract %s are unknown: %v\n", tractName, err)
		return
	}
	if p.Warn {
		warnPressure(env, p)
	}
}

// warnPressure says on stderr that the context is at or above its warning
// threshold, with the compression that brings it back under.
func warnPressure(env *clienv.Env, p tract.Pressure) {
	fmt.Fprintf(env.Stderr, "lineage: context at %.0f%% of the budget (%d of %d tokens, warn-at %g)", *p.Ratio*100, p.Tokens, *p.Budget, p.WarnAt)
	if p.Plan == nil {
		fmt.Fprintln(env.Stderr, ": nothing but pinned messages to compress")
		return
	}
	fmt.Fprintf(env.Stderr, ": compress %s frees %d tokens of %d messages for a summary of at most %d tokens (lineage tract compress %s --summary TEXT)\n",
		p.Plan.Range, p.Plan.Tokens, p.Plan.Messages, p.Plan.MaxSummaryTokens, p.Plan.Range)
}
