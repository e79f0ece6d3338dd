package cli

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
	"github.com/spf13/cobra"
)

func newTractInitCmd(env *Env, f *tractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the store (.lineage/lineage.db here) and tract main",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			url := f.store
			if url == "" {
				url = env.Getenv("LINEAGE_STORE")
			}
			if url == "" {
				url = stores.Default(env.Dir)
			}
			s, err := f.sessionAt(cmd, env, url, true, false)
			if err != nil {
				return err
			}
			defer s.Close()
			_, created, err := s.repo.Init(cmd.Context())
			if err != nil {
				return err
			}
			if !created {
				fmt.Fprintf(env.Stdout, "store %s already initialized\n", s.where)
				return nil
			}
			fmt.Fprintf(env.Stdout, "initialized store %s with tract main\n", s.where)
			return nil
		},
	}
}

func newTractNewCmd(env *Env, f *tractFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "new NAME",
		Short: "Create an empty tract",
		Args:  exactArgs(1),
		RunE: f.withSession(env, func(cmd *cobra.Command, args []string, s *tractSession) error {
			if _, err := s.repo.NewTract(cmd.Context(), args[0]); err != nil {
				return tractErr(err)
			}
			fmt.Fprintf(env.Stdout, "created tract %s\n", args[0])
			return nil
		}),
	}
}

func newTractCommitCmd(env *Env, f *tractFlags) *cobra.Command {
	var (
		typ, role, name, text, file, message, toolCallID, toolCalls, meta string
		pin, skip                                                         bool
		asJSON                                                            jsonFlag
	)
	cmd := &cobra.Command{
		Use:   "commit [--type T] [--role R] [--name N] [--text S | --file F | stdin] [--meta JSON]",
		Short: "Append a commit to the current branch; prints its hash",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pin && skip {
				return usageError("give --pin or --skip, not both")
			}
			body, err := tractReadInput(env, text, cmd.Flags().Changed("text"), file, toolCalls != "")
			if err != nil {
				return err
			}
			c := tract.Content{Type: tract.Type(typ), Role: role, Name: name, Text: body, ToolCallID: toolCallID}
			if c.Type == tract.TypeTools {
				tools, err := tract.ParseTools([]byte(body))
				if err != nil {
					return tractErr(err)
				}
				c.Text, c.Tools = "", tools
			}
			if toolCalls != "" {
				calls, err := tract.ParseToolCalls([]byte(toolCalls))
				if err != nil {
					return usageError("--tool-calls: %v", err)
				}
				c.ToolCalls = calls
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
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			commit, err := s.repo.Commit(cmd.Context(), s.tract, req)
			if err != nil {
				return tractErr(err)
			}
			// The pressure costs a compile: without a budget only --json
			// (which reports the tokens) pays for it.
			var p *tract.Pressure
			if cfg, err := s.repo.Config(cmd.Context(), s.tract); err == nil && (cfg.Budget > 0 || asJSON.set) {
				if got, err := s.repo.Pressure(cmd.Context(), s.tract); err == nil {
					p = &got
				} else {
					fmt.Fprintf(env.Stderr, "lineage: committed %s; the context's tokens are unknown: %v\n", commit.Hash.Short(), err)
				}
			}
			if p != nil && p.Warn {
				warnPressure(env, *p)
			}
			if asJSON.set {
				if p == nil {
					return writeJSON(env.Stdout, commit)
				}
				return writeJSON(env.Stdout, tract.CommitResult{Commit: commit, Pressure: *p})
			}
			fmt.Fprintln(env.Stdout, commit.Hash)
			return nil
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
	asJSON.add(cmd, "print the commit as JSON")
	return cmd
}

func newTractImportCmd(env *Env, f *tractFlags) *cobra.Command {
	var format string
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "import [--format openai|jsonl|lineage] FILE|-",
		Short: "Append every message of an OpenAI message array (or JSON lines) in one transaction, or add a lineage export",
		Long: `import --format openai|jsonl appends every message of FILE to the tract, in one
transaction. import --format lineage adds what 'lineage tract export' wrote
(tracts, blobs, commits, refs, annotations) after recomputing every hash:
a damaged or malformed export exits 3 and writes nothing; a tract that
already exists exits 1 and writes nothing. The store is created if needed,
so this is how a store moves to PostgreSQL (docs/postgres.md).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env.streaming()
			name := args[0]
			var data []byte
			var err error
			if name == "-" {
				data, err = readStdin(env, "messages")
				name = "stdin"
			} else {
				data, err = os.ReadFile(fsx.Abs(env.Dir, name))
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
			if format == "lineage" {
				return tractImportExport(cmd, env, f, name, data, asJSON)
			}
			var msgs iter.Seq2[tract.CommitRequest, error]
			switch format {
			case tract.ImportOpenAI:
				msgs = tract.OpenAIMessages(data)
			case tract.ImportJSONL:
				msgs = tract.JSONLMessages(data)
			default:
				return usageError("unknown --format %q (want openai, jsonl or lineage)", format)
			}
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			// The messages stream into the transaction: a bad one found
			// late rolls it back (nothing is written) and is a finding.
			var bad error
			res, err := s.repo.ImportSeq(cmd.Context(), s.tract, func(yield func(tract.CommitRequest, error) bool) {
				for req, err := range msgs {
					if err != nil {
						bad = err
					}
					if !yield(req, err) || err != nil {
						return
					}
				}
			})
			switch {
			case err != nil && bad != nil && errors.Is(err, bad):
				return findingError(fmt.Errorf("%s: %w", name, err))
			case err != nil:
				return inputErr(fmt.Errorf("%s: %w", name, err))
			}
			if asJSON.set {
				return writeJSON(env.Stdout, res)
			}
			if res.Count == 0 {
				fmt.Fprintln(env.Stdout, "imported 0 messages")
				return nil
			}
			fmt.Fprintf(env.Stdout, "imported %d messages; head %s\n", res.Count, res.Head)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", tract.ImportOpenAI, "input format: openai (a JSON array), jsonl (one message per line) or lineage (a tract export)")
	asJSON.add(cmd, "print {count, head} as JSON")
	return cmd
}

func newTractEditCmd(env *Env, f *tractFlags) *cobra.Command {
	var text, file, message string
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "edit REF (--text S | --file F)",
		Short: "Record an edit replacing a commit's text; prints the edit's hash",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("text") && file == "" {
				return usageError("give --text or --file")
			}
			body, err := tractReadInput(env, text, cmd.Flags().Changed("text"), file, false)
			if err != nil {
				return err
			}
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			c, err := s.repo.Edit(cmd.Context(), s.tract, args[0], body, message)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, c)
			}
			fmt.Fprintln(env.Stdout, c.Hash)
			return nil
		},
	}
	cmd.Flags().StringVar(&text, "text", "", "new text")
	cmd.Flags().StringVar(&file, "file", "", "read the new text from a file ('-' for stdin)")
	cmd.Flags().StringVar(&message, "message", "", "commit message")
	asJSON.add(cmd, "print the edit commit as JSON")
	return cmd
}

func newTractAnnotateCmd(env *Env, f *tractFlags) *cobra.Command {
	var reason string
	var asJSON jsonFlag
	cmd := &cobra.Command{
		Use:   "annotate REF skip|normal|important|pinned [--reason R]",
		Short: "Set the current tract's priority for a commit (any tract's)",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := tract.ParsePriority(args[1])
			if err != nil {
				return tractErr(err)
			}
			s, err := f.session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			a, err := s.repo.Annotate(cmd.Context(), s.tract, args[0], p, reason)
			if err != nil {
				return tractErr(err)
			}
			if asJSON.set {
				return writeJSON(env.Stdout, struct {
					Commit   tract.Hash     `json:"commit"`
					Tract    string         `json:"tract"`
					Priority tract.Priority `json:"priority"`
					Reason   string         `json:"reason,omitempty"`
					Time     time.Time      `json:"time"`
				}{a.Commit, s.tract, a.Priority, a.Reason, a.Time})
			}
			fmt.Fprintf(env.Stdout, "%s is %s for tract %s\n", a.Commit.Short(), a.Priority, s.tract)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why")
	asJSON.add(cmd, "print the annotation as JSON")
	return cmd
}

// warnPressure says on stderr that the context is at or above its warning
// threshold, with the compression that brings it back under.
func warnPressure(env *Env, p tract.Pressure) {
	fmt.Fprintf(env.Stderr, "lineage: context at %.0f%% of the budget (%d of %d tokens, warn-at %g)", *p.Ratio*100, p.Tokens, *p.Budget, p.WarnAt)
	if p.Plan == nil {
		fmt.Fprintln(env.Stderr, ": nothing but pinned messages to compress")
		return
	}
	fmt.Fprintf(env.Stderr, ": compress %s frees %d tokens of %d messages for a summary of at most %d tokens (lineage tract compress %s --summary TEXT)\n",
		p.Plan.Range, p.Plan.Tokens, p.Plan.Messages, p.Plan.MaxSummaryTokens, p.Plan.Range)
}
